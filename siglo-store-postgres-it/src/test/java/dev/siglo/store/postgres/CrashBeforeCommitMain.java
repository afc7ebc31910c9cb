package dev.siglo.store.postgres;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A consumer process that writes a payment inside a transactional step, says {@code written}, and
 * then waits (before the commit) until the test kills it with SIGKILL.
 */
public final class CrashBeforeCommitMain {
  private CrashBeforeCommitMain() {}

  /**
   * @param args the JDBC URL and the order id
   */
  public static void main(String[] args) {
    HikariDataSource ds = Payments.pool(args[0]);
    PostgresIdempotencyStore store = Payments.store(ds);
    TransactionalStep<String, Long> step =
        Payments.recordPayment(
            store,
            () -> {
              System.out.println("written");
              System.out.flush();
              System.in.read(); // hold the uncommitted transaction until killed
            });
    Payments.processor(store, step).process(Payments.message(args[1]));
    System.out.println("finished without being killed");
  }
}
