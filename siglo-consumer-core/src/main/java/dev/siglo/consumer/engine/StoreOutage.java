package dev.siglo.consumer.engine;

import java.time.Duration;

/**
 * What the engine's parts share about an outage of the idempotency store: any of them reports one
 * when a call fails with the store unavailable; while it lasts, one prober speaks for all of them
 * (lease renewals wait, completions wait for the store's return instead of retrying on their own),
 * so an outage costs the store a handful of probes, not a call per claim per second. {@link
 * StoreGate} is the engine's; {@link #NONE} never reports an outage (tests of one part alone).
 */
interface StoreOutage {
  /** No outage is ever known: callers retry on their own backoff. */
  StoreOutage NONE =
      new StoreOutage() {
        @Override
        public void storeUnavailable(Throwable cause) {}

        @Override
        public boolean storeDown() {
          return false;
        }

        @Override
        public boolean awaitStore(Duration timeout) {
          return true;
        }
      };

  /**
   * A call failed because the store is unavailable: the outage starts (if it had not) and the store
   * is probed until it answers.
   *
   * @param cause the failure
   */
  void storeUnavailable(Throwable cause);

  /**
   * @return whether an outage is known and no probe has found the store since
   */
  boolean storeDown();

  /**
   * Waits until no outage is known, at most {@code timeout}.
   *
   * @param timeout the longest wait
   * @return whether the store is believed up
   * @throws InterruptedException when interrupted while waiting
   */
  boolean awaitStore(Duration timeout) throws InterruptedException;
}
