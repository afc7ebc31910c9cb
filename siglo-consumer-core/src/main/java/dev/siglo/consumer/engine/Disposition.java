package dev.siglo.consumer.engine;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;
import java.util.Objects;

/**
 * What the runtime must do with a message after the engine processed it. Broker-neutral: the Kafka
 * runtime maps it to offset tracking and dead-letter topics, the SQS runtime to deletes, visibility
 * changes and DLQs. Every disposition other than {@link NackRetry} means the message reached atomic
 * completion and may be acknowledged.
 */
public sealed interface Disposition
    permits Disposition.Ack,
        Disposition.AckDeclined,
        Disposition.NackRetry,
        Disposition.DeadLetter {

  /**
   * @return whether the message may be acknowledged (committed or deleted)
   */
  default boolean acknowledges() {
    return !(this instanceof NackRetry);
  }

  /** Why a message is acknowledged. */
  enum AckReason {
    /** The handler ran and the outcome was completed. */
    PROCESSED,
    /** The key was completed before; the handler did not run. */
    DUPLICATE,
    /** Processed without idempotency (no key, {@code PROCESS_WITHOUT_IDEMPOTENCY}). */
    UNKEYED
  }

  /**
   * Acknowledge.
   *
   * @param reason processed, duplicate or unkeyed
   * @param outcome the (fresh or cached) successful outcome
   */
  record Ack(AckReason reason, Outcome.Success outcome) implements Disposition {
    /**
     * Validates.
     *
     * @param reason see the record component
     * @param outcome see the record component
     */
    public Ack {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /**
   * Acknowledge a permanent decline, cached in the store (the runtime may also copy the message to
   * the dead-letter destination when so configured).
   *
   * @param decline the decline
   * @param replayed whether it was replayed from the store (a duplicate of a declined message)
   * @param cause the failure when it happened now, {@code null} when replayed
   */
  record AckDeclined(Outcome.Declined decline, boolean replayed, Throwable cause)
      implements Disposition {
    /**
     * Validates.
     *
     * @param decline see the record component
     * @param replayed see the record component
     * @param cause see the record component
     */
    public AckDeclined {
      Objects.requireNonNull(decline, "decline");
    }
  }

  /**
   * Do not acknowledge; deliver the message again after {@code delay} (SQS: visibility change;
   * Kafka: hold the key or partition and retry, the commit point stays behind it).
   *
   * @param delay the backoff before the redelivery
   * @param cause the transient failure
   * @param attempts in-process attempts made in this delivery
   * @param counted whether this delivery counts toward {@code maxDeliveries}: {@code false} when
   *     Siglo's own infrastructure failed (the store was unavailable, or a duplicate waited on a
   *     live holder), which is never the message's fault
   */
  record NackRetry(Duration delay, Throwable cause, int attempts, boolean counted)
      implements Disposition {
    /**
     * Validates.
     *
     * @param delay see the record component
     * @param cause see the record component
     * @param attempts see the record component
     * @param counted see the record component
     */
    public NackRetry {
      Objects.requireNonNull(delay, "delay");
      Objects.requireNonNull(cause, "cause");
    }

    /**
     * A nack that counts toward {@code maxDeliveries}.
     *
     * @param delay see the record component
     * @param cause see the record component
     * @param attempts see the record component
     */
    public NackRetry(Duration delay, Throwable cause, int attempts) {
      this(delay, cause, attempts, true);
    }
  }

  /**
   * Send to the dead-letter destination with the reason, then acknowledge. No decline is cached for
   * {@link DeadLetterReason#RETRIES_EXHAUSTED}: replaying it from the DLQ executes it.
   *
   * @param reason why
   * @param errorClass the class of the failure
   * @param cause the failure
   * @param attempts in-process attempts made in this delivery
   */
  record DeadLetter(DeadLetterReason reason, ErrorClass errorClass, Throwable cause, int attempts)
      implements Disposition {
    /**
     * Validates.
     *
     * @param reason see the record component
     * @param errorClass see the record component
     * @param cause see the record component
     * @param attempts see the record component
     */
    public DeadLetter {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(errorClass, "errorClass");
      Objects.requireNonNull(cause, "cause");
    }
  }
}
