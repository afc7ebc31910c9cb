package dev.siglo.consumer.engine;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.SigloException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.Outcome;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what happened to a message into its {@link Disposition}, with the log line and the event
 * that go with it: an invocation's result, a failure after an attempt (retry in process, nack, or
 * dead letter), a dead letter. Shared by the one-message and the batch paths of the engine, so both
 * decide alike. Stateless and thread-safe.
 */
final class Verdicts {
  private static final Logger log = LoggerFactory.getLogger(DefaultMessageProcessor.class);

  private final RetryConfig retry;
  private final ErrorClassifier classifier;
  private final EventSink events;
  private final StoreGate gate;
  private final IntervalFunction redeliveryBackoff;
  private final Duration settleTimeout;

  Verdicts(
      RetryConfig retry,
      ErrorClassifier classifier,
      EventSink events,
      StoreGate gate,
      IntervalFunction redeliveryBackoff,
      Duration settleTimeout) {
    this.retry = retry;
    this.classifier = classifier;
    this.events = events;
    this.gate = gate;
    this.redeliveryBackoff = redeliveryBackoff;
    this.settleTimeout = settleTimeout;
  }

  /**
   * What a failed attempt leads to.
   *
   * @param deliveries the message's deliveries so far (read only when the attempts are spent)
   * @return the disposition, or {@code null} when the message is retried in process after the
   *     backoff
   */
  Disposition afterFailure(
      Message message, String key, Exception e, int attempt, IntSupplier deliveries) {
    IdempotencyConflictException conflict =
        SigloException.findCause(e, IdempotencyConflictException.class);
    if (conflict != null && events.enabled()) {
      events.emit(new SigloEvent.Conflict(message, key, settleTimeout));
    }
    IdempotencyStoreUnavailableException down =
        SigloException.findCause(e, IdempotencyStoreUnavailableException.class);
    if (down != null) {
      gate.storeUnavailable(down);
    }
    // Siglo's own infrastructure failed, not the message: never counted, never dead-lettered
    boolean infrastructure = down != null || conflict != null;
    if (classifier.classify(e) == ErrorClass.PERMANENT && !infrastructure) {
      // the invoker turns permanent failures of the handler into cached declines; what arrives
      // here failed outside it (the store rejected the key or cannot read the record)
      return deadLetter(
          message, key, DeadLetterReason.UNPROCESSABLE, ErrorClass.PERMANENT, e, attempt);
    }
    if (Thread.currentThread().isInterrupted()) {
      return nack(message, key, e, attempt, !infrastructure);
    }
    if (down != null && !gate.isOpen()) {
      // intake is paused until the store answers a probe: spend no more attempts on it
      return nack(message, key, e, attempt, false);
    }
    if (attempt >= retry.maxAttempts()) {
      if (infrastructure) {
        return nack(message, key, e, attempt, false);
      }
      if (deliveries.getAsInt() >= retry.maxDeliveries()) {
        return deadLetter(
            message, key, DeadLetterReason.RETRIES_EXHAUSTED, ErrorClass.TRANSIENT, e, attempt);
      }
      return nack(message, key, e, attempt, true);
    }
    return null;
  }

  /**
   * The answer when the thread was interrupted during a retry's backoff: a stop never dead-letters.
   */
  Disposition interrupted(Message message, String key, Exception e, int attempts) {
    boolean infrastructure =
        SigloException.findCause(e, IdempotencyStoreUnavailableException.class) != null
            || SigloException.findCause(e, IdempotencyConflictException.class) != null;
    return nack(message, key, e, attempts, !infrastructure);
  }

  /** Reports an in-process retry after its backoff. */
  void retried(Message message, String key, int attempt, Exception e, Duration waited) {
    log.debug(
        "{} key '{}': attempt {} failed transiently ({}); retrying",
        message,
        key,
        attempt,
        e.toString());
    if (events.enabled()) {
      events.emit(new SigloEvent.Retried(message, key, attempt, e, waited, false));
    }
  }

  /** The disposition of a keyed message's invocation. */
  Disposition of(Message message, String key, Invocation<?> result, long handlerNanos) {
    if (result instanceof Invocation.Executed<?> executed) {
      log.debug("{} key '{}': processed", message, key);
      if (events.enabled()) {
        events.emit(new SigloEvent.Processed(message, key, Duration.ofNanos(handlerNanos)));
      }
      return new Disposition.Ack(
          key == null ? Disposition.AckReason.UNKEYED : Disposition.AckReason.PROCESSED,
          executed.outcome());
    }
    if (result instanceof Invocation.DeclinedNow<?> declined) {
      log.info(
          "{} key '{}': declined permanently: {}", message, key, declined.decline().errorType());
      if (events.enabled()) {
        events.emit(new SigloEvent.Declined(message, key, declined.decline(), false));
      }
      return new Disposition.AckDeclined(declined.decline(), false, declined.cause());
    }
    Invocation.Replayed<?> replayed = (Invocation.Replayed<?>) result;
    Outcome outcome = replayed.outcome();
    if (outcome instanceof Outcome.Declined decline) {
      if (CrashLoopException.class.getSimpleName().equals(decline.errorType())) {
        // its dead letter may not have been published before the process died: publish again
        return deadLetter(
            message,
            key,
            DeadLetterReason.CRASH_LOOP,
            ErrorClass.PERMANENT,
            new CrashLoopException(decline.message()),
            0);
      }
      log.debug("{} key '{}': duplicate of a declined message; decline replayed", message, key);
      if (events.enabled()) {
        events.emit(new SigloEvent.Declined(message, key, decline, true));
      }
      return new Disposition.AckDeclined(decline, true, null);
    }
    log.debug("{} key '{}': duplicate; cached result returned", message, key);
    if (events.enabled()) {
      events.emit(new SigloEvent.Duplicate(message, key, outcome, replayed.settled()));
    }
    return new Disposition.Ack(Disposition.AckReason.DUPLICATE, (Outcome.Success) outcome);
  }

  /**
   * Redeliver later. {@code counted}: whether this delivery counts toward {@code maxDeliveries}.
   */
  Disposition nack(Message message, String key, Exception cause, int attempts, boolean counted) {
    Duration delay = Duration.ofMillis(redeliveryBackoff.apply(message.deliveryAttempt()));
    log.info(
        "{} key '{}': transient failure after {} attempt(s) ({}); redeliver in {}",
        message,
        key,
        attempts,
        cause.toString(),
        delay);
    if (events.enabled()) {
      events.emit(new SigloEvent.Retried(message, key, attempts, cause, delay, true));
    }
    return new Disposition.NackRetry(delay, cause, attempts, counted);
  }

  /** A permanent dead letter. */
  Disposition deadLetter(
      Message message, String key, DeadLetterReason reason, Exception cause, int attempts) {
    return deadLetter(message, key, reason, ErrorClass.PERMANENT, cause, attempts);
  }

  Disposition deadLetter(
      Message message,
      String key,
      DeadLetterReason reason,
      ErrorClass errorClass,
      Exception cause,
      int attempts) {
    log.warn(
        "{} key '{}': dead-lettered ({}): {}",
        message,
        Optional.ofNullable(key).orElse("-"),
        reason,
        cause.getMessage());
    if (events.enabled()) {
      events.emit(new SigloEvent.DeadLettered(message, key, reason, errorClass, cause));
    }
    return new Disposition.DeadLetter(reason, errorClass, cause, attempts);
  }
}
