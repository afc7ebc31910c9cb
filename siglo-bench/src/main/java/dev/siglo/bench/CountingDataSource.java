package dev.siglo.bench;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the database calls made through it, as the client sees them:
 * every statement execution ({@code execute…}, a JDBC batch's {@code executeBatch} once) and every
 * {@code commit} and {@code rollback}. Each of those is one round trip with the PostgreSQL driver
 * (a transaction's {@code BEGIN} rides on its first statement). Thread-safe.
 */
final class CountingDataSource implements DataSource {
  private final DataSource delegate;
  private final LongAdder calls = new LongAdder();

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /**
   * @return the calls counted so far
   */
  long calls() {
    return calls.sum();
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return wrap(delegate.getConnection(username, password));
  }

  private Connection wrap(Connection c) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            counting(
                c,
                (m, result) -> {
                  String name = m.getName();
                  if (name.equals("commit") || name.equals("rollback")) {
                    calls.increment();
                  }
                  if (result instanceof Statement s) {
                    return statement(s, m.getReturnType());
                  }
                  return result;
                }));
  }

  private Object statement(Statement s, Class<?> type) {
    return Proxy.newProxyInstance(
        type.getClassLoader(),
        new Class<?>[] {type},
        counting(
            s,
            (m, result) -> {
              if (m.getName().startsWith("execute")) {
                calls.increment();
              }
              return result;
            }));
  }

  /** What a proxy does after its target answered. */
  @FunctionalInterface
  private interface After {
    Object apply(Method method, Object result);
  }

  private static InvocationHandler counting(Object target, After after) {
    return (proxy, method, args) -> {
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      return after.apply(method, result);
    };
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
