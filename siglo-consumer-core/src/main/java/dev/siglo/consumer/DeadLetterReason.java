package dev.siglo.consumer;

/** Why a message goes to the dead-letter destination. */
public enum DeadLetterReason {
  /** The payload could not be decoded (or fingerprinted). */
  POISON_PAYLOAD,
  /** No idempotency key where the extractor looked, or the extractor failed. */
  MISSING_KEY,
  /** The key is hostile or invalid (too long, control characters). */
  INVALID_KEY,
  /** The key was used before with a different payload. */
  KEY_REUSE,
  /** A transient failure persisted through the maximum number of deliveries. */
  RETRIES_EXHAUSTED,
  /**
   * A permanent failure outside the handler: the store rejected the key or holds a record it cannot
   * read. Nothing is cached; the message needs an operator.
   */
  UNPROCESSABLE,
  /**
   * The record's claim had to be taken over from a dead holder {@code maxTakeovers} times: the
   * message kills the consumer that runs it (out of memory, a native crash, a halt), so it is put
   * aside instead of crash-looping the group. A decline is cached for it, so a redelivery is
   * acknowledged without running; clear its record to run it again after the fix.
   */
  CRASH_LOOP
}
