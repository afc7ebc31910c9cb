package dev.siglo.store.postgres;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Wraps a data source and counts the statements executed through it (round trips). */
final class CountingDataSource {
  final AtomicInteger executions = new AtomicInteger();
  final DataSource dataSource;

  CountingDataSource(DataSource target) {
    this.dataSource = proxy(DataSource.class, target);
  }

  private <T> T proxy(Class<T> type, T target) {
    InvocationHandler h =
        (p, method, args) -> {
          if (method.getName().startsWith("execute")) {
            executions.incrementAndGet();
          }
          Object result;
          try {
            result = method.invoke(target, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (result instanceof Connection c && method.getReturnType() == Connection.class) {
            return proxy(Connection.class, c);
          }
          if (result instanceof Statement s
              && Statement.class.isAssignableFrom(method.getReturnType())) {
            @SuppressWarnings("unchecked")
            Class<Statement> statementType = (Class<Statement>) method.getReturnType();
            return proxy(statementType, s);
          }
          return result;
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }
}
