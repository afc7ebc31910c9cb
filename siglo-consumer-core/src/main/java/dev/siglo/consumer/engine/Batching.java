package dev.siglo.consumer.engine;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;

/**
 * How a runtime hands messages to a {@link dev.siglo.consumer.BatchMessageHandler}: batches of up
 * to {@code size} messages, a batch that is not full handed over once its first message waited
 * {@code linger}. {@link #NONE} (size 0): messages are handed over one by one.
 *
 * @param size the most messages in one batch; 0 for no batching
 * @param linger how long a batch that is not full waits for more messages; not negative
 */
public record Batching(int size, Duration linger) {
  /** No batching: one message at a time. */
  public static final Batching NONE = new Batching(0, Duration.ZERO);

  /**
   * Validates.
   *
   * @param size see the record component
   * @param linger see the record component
   */
  public Batching {
    if (size < 0) {
      throw new IllegalArgumentException("batchSize must not be negative, was " + size);
    }
    Durations.requireNonNegative(linger, "batchLinger");
  }

  /**
   * The most messages a runtime holds at once (received or acquired, not yet finished), so that its
   * batches can fill: the configured bound, which must hold a batch, or else {@code otherwise}
   * raised to two batches.
   *
   * @param configured the bound the user set, or {@code null}
   * @param otherwise the runtime's default bound
   * @return the bound to run with
   * @throws dev.siglo.consumer.error.SigloConfigurationException naming both settings when the
   *     configured bound is below the batch size
   */
  public int maxInFlight(Integer configured, int otherwise) {
    if (configured == null) {
      return Math.max(otherwise, 2 * size);
    }
    if (configured < size) {
      throw new dev.siglo.consumer.error.SigloConfigurationException(
          "maxInFlight ("
              + configured
              + ") must be at least batchSize ("
              + size
              + "): fewer messages held than a batch holds would never fill a batch");
    }
    return configured;
  }

  /**
   * @return whether messages are handed over in batches
   */
  public boolean enabled() {
    return size > 0;
  }
}
