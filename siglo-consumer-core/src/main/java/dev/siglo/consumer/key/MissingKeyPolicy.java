package dev.siglo.consumer.key;

import dev.siglo.consumer.error.MissingIdempotencyKeyException;

/** What happens to a message without an idempotency key. */
public enum MissingKeyPolicy {
  /**
   * Default: the message is poison and dead-lettered with {@link MissingIdempotencyKeyException}.
   */
  REJECT,
  /**
   * Opt-in: the handler runs without a claim (at-least-once, no deduplication); its idempotent
   * steps use absolute keys.
   */
  PROCESS_WITHOUT_IDEMPOTENCY
}
