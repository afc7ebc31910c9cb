package dev.siglo.consumer.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.MissingIdempotencyKeyException;
import dev.siglo.consumer.error.PayloadDecodingException;
import dev.siglo.consumer.error.SigloException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.Time;
import io.github.resilience4j.core.IntervalFunction;
import java.nio.charset.CharacterCodingException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind {@link MessageProcessor}: decode, extract and build the key, then claim and run
 * the handler through the {@link IdempotentInvoker}, with in-process retries of transient failures
 * (resilience4j interval functions, slept on the injected {@link Time}) and a broker-neutral {@link
 * Disposition} at the end. Thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class DefaultMessageProcessor<T> implements MessageProcessor {
  private static final Logger log = LoggerFactory.getLogger(DefaultMessageProcessor.class);

  /** The raw key the store probe reads (a read of a key nobody writes). */
  static final String PROBE_KEY = "siglo-store-probe";

  private final MessageProcessorConfig<T> config;
  private final IdempotentInvoker invoker;
  private final EventSink events;
  private final IntervalFunction retryBackoff;
  private final IntervalFunction redeliveryBackoff;
  private final Time time;
  private final ResultJson results;
  private final ErrorClassifier classifier;
  private final LeaseKeeper leases;
  private final StoreGate gate;
  private final Isolation isolation = new Isolation();

  private final Tracing tracing;

  /**
   * @param config the configuration
   */
  DefaultMessageProcessor(MessageProcessorConfig<T> config) {
    this.config = config;
    this.time = config.time();
    this.results = ResultJson.of(config.resultMapper());
    this.events = new EventSink(config.listeners());
    this.gate =
        new StoreGate(
            config.store(), config.keys().key(PROBE_KEY), config.pauseConditions(), time, events);
    this.leases = new LeaseKeeper(config.store(), time, events, gate);
    this.tracing = config.tracing();
    this.invoker =
        new IdempotentInvoker(tracing.traced(config.store()), results, time, leases, gate);
    if (!config.pauseConditions().isEmpty()) {
      gate.startTicking();
    }
    this.classifier = config.classifier();
    RetryConfig r = config.retry();
    this.retryBackoff = backoff(r.initialBackoff(), r.maxBackoff(), r);
    this.redeliveryBackoff = backoff(r.initialRedeliveryBackoff(), r.maxRedeliveryBackoff(), r);
  }

  private static IntervalFunction backoff(Duration initial, Duration max, RetryConfig r) {
    return r.jitter() == 0.0
        ? IntervalFunction.ofExponentialBackoff(initial, r.multiplier(), max)
        : IntervalFunction.ofExponentialRandomBackoff(initial, r.multiplier(), r.jitter(), max);
  }

  @Override
  public IntakeGate intake() {
    return gate;
  }

  @Override
  public void close() {
    leases.close();
    gate.close();
  }

  /** The lease keeper (tests renew on injected time). */
  LeaseKeeper leases() {
    return leases;
  }

  /** The gate (tests check it on injected time). */
  StoreGate gate() {
    return gate;
  }

  @Override
  public Disposition process(Message message) {
    Tracing.Span span = tracing.message(message);
    try {
      Disposition d = processUntraced(message);
      span.outcome(d);
      return d;
    } catch (RuntimeException | Error e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }

  @Override
  public Disposition process(Message message, FollowUp followUp) throws Exception {
    Tracing.Span span = tracing.message(message);
    try {
      Disposition d = processUntraced(message);
      span.outcome(d);
      followUp.apply(d);
      return d;
    } catch (Exception | Error e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }

  @Override
  public void deadLettering(String destination, java.util.concurrent.Callable<?> publish)
      throws Exception {
    Tracing.Span span = tracing.deadLetter(destination);
    try {
      publish.call();
    } catch (Exception | Error e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }

  private Disposition processUntraced(Message message) {
    T value;
    try {
      value = config.decoder().decode(message);
    } catch (Exception e) {
      if (!isTransientDecodeFailure(e)) {
        return poison(message, e);
      }
      // the decoder's dependency failed (a schema registry, say): retried like a handler failure
      return withRetries(
          message,
          null,
          message::deliveryAttempt,
          attempt -> {
            if (attempt == 1) {
              throw e;
            }
            T decoded;
            try {
              decoded = config.decoder().decode(message);
            } catch (Exception again) {
              if (isTransientDecodeFailure(again)) {
                throw again;
              }
              return poison(message, again);
            }
            return processDecoded(message, decoded);
          });
    }
    return processDecoded(message, value);
  }

  /**
   * A decoder failure is retried only when a classification rule says it is transient and it is not
   * a parse error: malformed bytes stay poison however the classifier's default is set.
   */
  private boolean isTransientDecodeFailure(Exception e) {
    Classification c = classifier.classifyDetailed(e);
    return c.errorClass() == ErrorClass.TRANSIENT
        && !c.byDefault()
        && !(c.decisive() instanceof JsonProcessingException)
        && !(c.decisive() instanceof CharacterCodingException);
  }

  private Disposition poison(Message message, Exception e) {
    return deadLetter(
        message,
        null,
        DeadLetterReason.POISON_PAYLOAD,
        new PayloadDecodingException("payload of " + message + " could not be decoded: " + e, e),
        0);
  }

  private Disposition processDecoded(Message message, T value) {
    String rawKey;
    try {
      rawKey = config.keyExtractor().extract(message, value).filter(k -> !k.isBlank()).orElse(null);
    } catch (Exception e) {
      return deadLetter(
          message,
          null,
          DeadLetterReason.MISSING_KEY,
          new MissingIdempotencyKeyException(
              "key extractor ("
                  + config.keyExtractor().describe()
                  + ") failed on "
                  + message
                  + ": "
                  + e,
              e),
          0);
    }
    if (rawKey == null) {
      if (config.missingKeyPolicy() == MissingKeyPolicy.REJECT) {
        return deadLetter(
            message,
            null,
            DeadLetterReason.MISSING_KEY,
            new MissingIdempotencyKeyException(
                "no idempotency key in " + config.keyExtractor().describe() + " of " + message),
            0);
      }
      return withRetries(
          message, null, message::deliveryAttempt, attempt -> runUnkeyed(message, value, attempt));
    }
    String key;
    try {
      key = config.keys().key(rawKey);
    } catch (InvalidIdempotencyKeyException e) {
      return deadLetter(message, null, DeadLetterReason.INVALID_KEY, e, 0);
    }
    String fingerprint;
    try {
      fingerprint = config.fingerprint().fingerprint(message, value);
    } catch (Exception e) {
      return deadLetter(
          message,
          key,
          DeadLetterReason.POISON_PAYLOAD,
          new PayloadDecodingException(
              "payload of " + message + " could not be fingerprinted: " + e, e),
          0);
    }
    MessageBudget budget = new MessageBudget(message, config.retry(), classifier);
    return withRetries(
        message,
        key,
        budget::deliveries,
        attempt -> {
          budget.attempt(attempt);
          return runKeyed(message, value, key, fingerprint, attempt, budget);
        });
  }

  @FunctionalInterface
  private interface Attempt {
    Disposition run(int attempt) throws Exception;
  }

  /**
   * Runs the attempts of one delivery: a transient failure is retried in process after a backoff
   * (resilience4j's interval function, slept on the injected time) up to {@code maxAttempts}; then
   * the message is nacked or, past {@code maxDeliveries}, dead-lettered.
   */
  private Disposition withRetries(
      Message message, String key, java.util.function.IntSupplier deliveries, Attempt body) {
    int maxAttempts = config.retry().maxAttempts();
    for (int attempt = 1; ; attempt++) {
      try {
        return body.run(attempt);
      } catch (Exception e) {
        IdempotencyConflictException conflict =
            SigloException.findCause(e, IdempotencyConflictException.class);
        if (conflict != null && events.enabled()) {
          events.emit(new SigloEvent.Conflict(message, key, config.idempotency().settleTimeout()));
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
        if (attempt >= maxAttempts) {
          return infrastructure
              ? nack(message, key, e, attempt, false)
              : nackOrDeadLetter(message, key, e, attempt, deliveries.getAsInt());
        }
        long start = time.nanoTime();
        try {
          time.sleep(Duration.ofMillis(retryBackoff.apply(attempt)));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return nack(message, key, e, attempt, !infrastructure);
        }
        log.debug(
            "{} key '{}': attempt {} failed transiently ({}); retrying",
            message,
            key,
            attempt,
            e.toString());
        if (events.enabled()) {
          events.emit(
              new SigloEvent.Retried(
                  message, key, attempt, e, Duration.ofNanos(time.nanoTime() - start), false));
        }
      }
    }
  }

  private Disposition runKeyed(
      Message message, T value, String key, String fingerprint, int attempt, DeliveryBudget budget)
      throws Exception {
    long[] handlerNanos = new long[1];
    Invocation<Object> result;
    IdempotentInvoker.Body<Object> body =
        token -> runHandler(message, value, key, token, attempt, handlerNanos);
    try {
      result = isolation.run(() -> invoke(message, key, fingerprint, budget, body));
    } catch (IdempotencyKeyReuseException e) {
      return deadLetter(message, key, DeadLetterReason.KEY_REUSE, e, attempt);
    } catch (CrashLoopException e) {
      return deadLetter(message, key, DeadLetterReason.CRASH_LOOP, e, attempt);
    }
    if (result instanceof Invocation.Executed<Object> executed) {
      log.debug("{} key '{}': processed", message, key);
      if (events.enabled()) {
        events.emit(new SigloEvent.Processed(message, key, Duration.ofNanos(handlerNanos[0])));
      }
      return new Disposition.Ack(Disposition.AckReason.PROCESSED, executed.outcome());
    }
    if (result instanceof Invocation.DeclinedNow<Object> declined) {
      log.info(
          "{} key '{}': declined permanently: {}", message, key, declined.decline().errorType());
      if (events.enabled()) {
        events.emit(new SigloEvent.Declined(message, key, declined.decline(), false));
      }
      return new Disposition.AckDeclined(declined.decline(), false, declined.cause());
    }
    Invocation.Replayed<Object> replayed = (Invocation.Replayed<Object>) result;
    Outcome outcome = replayed.outcome();
    if (outcome instanceof Outcome.Declined decline) {
      if (CrashLoopException.class.getSimpleName().equals(decline.errorType())) {
        // its dead letter may not have been published before the process died: publish again
        return deadLetter(
            message,
            key,
            DeadLetterReason.CRASH_LOOP,
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

  private Invocation<Object> invoke(
      Message message,
      String key,
      String fingerprint,
      DeliveryBudget budget,
      IdempotentInvoker.Body<Object> body)
      throws Exception {
    return invoker.invoke(
        message, key, fingerprint, config.idempotency(), classifier, budget, body);
  }

  private Disposition runUnkeyed(Message message, T value, int attempt) throws Exception {
    long[] handlerNanos = new long[1];
    Invocation<Object> result =
        invoker.invokeUnclaimed(
            classifier, token -> runHandler(message, value, null, null, attempt, handlerNanos));
    if (result instanceof Invocation.DeclinedNow<Object> declined) {
      if (events.enabled()) {
        events.emit(new SigloEvent.Declined(message, null, declined.decline(), false));
      }
      return new Disposition.AckDeclined(declined.decline(), false, declined.cause());
    }
    if (events.enabled()) {
      events.emit(new SigloEvent.Processed(message, null, Duration.ofNanos(handlerNanos[0])));
    }
    return new Disposition.Ack(
        Disposition.AckReason.UNKEYED, ((Invocation.Executed<Object>) result).outcome());
  }

  private Object runHandler(
      Message message, T value, String key, ClaimToken token, int attempt, long[] handlerNanos)
      throws Exception {
    long start = System.nanoTime();
    DefaultHandlerContext context =
        new DefaultHandlerContext(
            message, key, token, attempt, invoker, config.keys(), classifier, results, tracing);
    Object result;
    HandlerMdc mdc = HandlerMdc.of(message, key);
    Tracing.Span span = tracing.handler(attempt);
    try {
      result = config.handler().handle(value, context);
      for (MessageHook hook : config.hooks()) {
        hook.after(message, result);
      }
    } catch (Exception | Error e) {
      span.fail(e);
      throw e;
    } finally {
      context.close();
      span.close();
      mdc.close();
    }
    handlerNanos[0] = System.nanoTime() - start;
    return result;
  }

  private Disposition nackOrDeadLetter(
      Message message, String key, Exception cause, int attempts, int deliveries) {
    if (deliveries >= config.retry().maxDeliveries()) {
      return deadLetter(
          message, key, DeadLetterReason.RETRIES_EXHAUSTED, ErrorClass.TRANSIENT, cause, attempts);
    }
    return nack(message, key, cause, attempts, true);
  }

  /**
   * Redeliver later. Also the answer when the worker is interrupted: a stop never dead-letters.
   * {@code counted}: whether this delivery counts toward {@code maxDeliveries}.
   */
  private Disposition nack(
      Message message, String key, Exception cause, int attempts, boolean counted) {
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

  private Disposition deadLetter(
      Message message, String key, DeadLetterReason reason, Exception cause, int attempts) {
    return deadLetter(message, key, reason, ErrorClass.PERMANENT, cause, attempts);
  }

  private Disposition deadLetter(
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
