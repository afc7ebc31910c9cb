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
   * @return whether messages are handed over in batches
   */
  public boolean enabled() {
    return size > 0;
  }
}
