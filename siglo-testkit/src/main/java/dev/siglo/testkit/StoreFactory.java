package dev.siglo.testkit;

import dev.siglo.consumer.store.IdempotencyStore;

/**
 * Opens a store from a connection string in a child process of {@link MultiProcessClaimRace}.
 * Implementations need a public no-argument constructor.
 */
public interface StoreFactory {
  /**
   * @param connection a connection string (a Redis URL, a JDBC URL)
   * @return an open store
   */
  IdempotencyStore open(String connection);
}
