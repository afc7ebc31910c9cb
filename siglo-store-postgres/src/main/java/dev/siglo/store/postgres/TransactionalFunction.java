package dev.siglo.store.postgres;

import java.sql.Connection;

/**
 * The body of a {@link TransactionalStep}: database work done on the given connection, inside the
 * transaction that also writes the step's idempotency record. Do not commit, roll back or close the
 * connection.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
@FunctionalInterface
public interface TransactionalFunction<I, R> {
  /**
   * @param connection the transaction's connection
   * @param input the step's input
   * @return the result (encoded as JSON into the record)
   * @throws Exception a failure: the transaction rolls back (a permanent one still records the
   *     decline)
   */
  R apply(Connection connection, I input) throws Exception;
}
