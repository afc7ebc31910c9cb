package dev.siglo.consumer.event;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;

/**
 * What happened to a message, for listeners and metrics. Events are built only when someone
 * listens. {@code key} is the built idempotency key, or {@code null} when the message had none.
 */
public sealed interface SigloEvent
    permits SigloEvent.Processed,
        SigloEvent.Duplicate,
        SigloEvent.Declined,
        SigloEvent.Retried,
        SigloEvent.Conflict,
        SigloEvent.LeaseLost,
        SigloEvent.DeadLettered,
        SigloEvent.ConsumerEvent {

  /**
   * @return the message, or {@code null} for a {@link ConsumerEvent} ({@link Paused}, {@link
   *     Resumed})
   */
  Message message();

  /**
   * @return the built idempotency key, or {@code null}
   */
  String key();

  /**
   * The handler ran and its outcome was completed.
   *
   * @param message the message
   * @param key the key
   * @param handlerTime how long the handler and hooks took
   */
  record Processed(Message message, String key, Duration handlerTime) implements SigloEvent {}

  /**
   * The key was completed before (possibly after waiting for an in-flight duplicate to settle); the
   * handler did not run.
   *
   * @param message the message
   * @param key the key
   * @param outcome the cached outcome
   * @param settled whether it found the key in progress and waited for it to settle
   */
  record Duplicate(Message message, String key, Outcome outcome, boolean settled)
      implements SigloEvent {}

  /**
   * A permanent failure was cached as a decline (or a cached decline was replayed).
   *
   * @param message the message
   * @param key the key
   * @param decline the decline
   * @param replayed whether it was replayed from the store without running the handler
   */
  record Declined(Message message, String key, Outcome.Declined decline, boolean replayed)
      implements SigloEvent {}

  /**
   * A transient failure will be retried: in process after {@code delay}, or by redelivery.
   *
   * @param message the message
   * @param key the key
   * @param attempt the in-process attempt that failed
   * @param cause the failure
   * @param delay the wait before the retry (in process) or the redelivery
   * @param redelivery whether the retry is a redelivery (nack) rather than in process
   */
  record Retried(
      Message message, String key, int attempt, Throwable cause, Duration delay, boolean redelivery)
      implements SigloEvent {}

  /**
   * A duplicate found the key in progress and it did not settle within the settle timeout.
   *
   * @param message the message
   * @param key the key
   * @param waited how long it waited
   */
  record Conflict(Message message, String key, Duration waited) implements SigloEvent {}

  /**
   * A renewal found the claim of a running handler or step taken over by another holder: this
   * process was frozen, or cut off from the store, past its lease. The running execution's outcome
   * will not be recorded; it settles on the new holder's result instead of taking the key back.
   *
   * @param message the message
   * @param key the key of the lost claim (the message's, or one of its steps')
   * @param lease the lease it held
   */
  record LeaseLost(Message message, String key, Duration lease) implements SigloEvent {}

  /**
   * The message goes to the dead-letter destination.
   *
   * @param message the message
   * @param key the key, or {@code null}
   * @param reason why
   * @param errorClass the class of the failure
   * @param cause the failure
   */
  record DeadLettered(
      Message message, String key, DeadLetterReason reason, ErrorClass errorClass, Throwable cause)
      implements SigloEvent {}

  /**
   * An event about the consumer rather than a message: {@link #message()} and {@link #key()} are
   * {@code null}.
   */
  sealed interface ConsumerEvent extends SigloEvent permits Paused, Resumed {
    @Override
    default Message message() {
      return null;
    }

    @Override
    default String key() {
      return null;
    }
  }

  /**
   * The consumer stopped taking new work: the idempotency store is unavailable, or a pause
   * condition given to the builder holds (an open circuit breaker). Running handlers go on; no new
   * one starts until {@link Resumed}.
   *
   * @param reason why
   * @param cause the failure that closed the gate, or {@code null}
   */
  record Paused(String reason, Throwable cause) implements ConsumerEvent {}

  /**
   * The consumer takes new work again.
   *
   * @param reason why it had paused
   * @param pausedFor how long it was paused
   */
  record Resumed(String reason, Duration pausedFor) implements ConsumerEvent {}
}
