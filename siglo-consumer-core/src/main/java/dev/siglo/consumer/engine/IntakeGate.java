package dev.siglo.consumer.engine;

import java.time.Duration;
import java.util.Optional;

/**
 * The runtime SPI's flow-control gate: whether a runtime may take new work now. It closes while the
 * idempotency store is unavailable (the engine reports the outage; the gate probes the store with
 * backoff and opens by itself once a probe succeeds) and while any pause condition the user gave
 * the builder holds (a resilience4j {@code CircuitBreaker} that is open, a health supplier). While
 * it is closed a runtime starts no handler: Kafka pauses its partitions and keeps polling, SQS
 * stops receiving and makes held, unstarted messages visible again. Thread-safe.
 */
public interface IntakeGate {
  /** A gate that is always open. */
  IntakeGate OPEN =
      new IntakeGate() {
        @Override
        public Optional<String> pausedReason() {
          return Optional.empty();
        }

        @Override
        public boolean awaitOpen(Duration timeout) {
          return true;
        }
      };

  /**
   * @return why intake is paused now, or empty when it is open
   */
  Optional<String> pausedReason();

  /**
   * @return whether new work may be taken now
   */
  default boolean isOpen() {
    return pausedReason().isEmpty();
  }

  /**
   * Waits until the gate is open, at most {@code timeout}.
   *
   * @param timeout the longest wait
   * @return whether it is open
   * @throws InterruptedException when interrupted while waiting
   */
  boolean awaitOpen(Duration timeout) throws InterruptedException;
}
