package dev.siglo.consumer.engine;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.support.Time;
import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;

/**
 * The engine behind {@link MessageProcessor}: decode, extract and build the key, then claim and run
 * the handler through the {@link IdempotentInvoker}, with in-process retries of transient failures
 * (resilience4j interval functions, slept on the injected {@link Time}) and a broker-neutral {@link
 * Disposition} at the end. Thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class DefaultMessageProcessor<T> implements MessageProcessor {
  /** The raw key the store probe reads (a read of a key nobody writes). */
  static final String PROBE_KEY = "siglo-store-probe";

  private final MessageProcessorConfig<T> config;
  private final IdempotentInvoker invoker;
  private final EventSink events;
  private final IntervalFunction retryBackoff;
  private final Time time;
  private final ResultJson results;
  private final ErrorClassifier classifier;
  private final LeaseKeeper leases;
  private final StoreGate gate;
  private final Isolation isolation = new Isolation();
  private final Verdicts verdicts;
  private final Preparer<T> preparer;
  private final BatchRunner<T> batches; // null unless the handler is a batch handler

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
    this.verdicts =
        new Verdicts(
            r,
            classifier,
            events,
            gate,
            backoff(r.initialRedeliveryBackoff(), r.maxRedeliveryBackoff(), r),
            config.idempotency().settleTimeout());
    this.preparer = new Preparer<>(config, verdicts);
    this.batches =
        config.batched() ? new BatchRunner<>(this, config, invoker, preparer, verdicts) : null;
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

  /** Runs suspects alone (the batch path shares it). */
  Isolation isolation() {
    return isolation;
  }

  /** The codec of results. */
  ResultJson results() {
    return results;
  }

  /** A handler call's context: the message, its key and claim, its steps. */
  DefaultHandlerContext context(Message message, String key, ClaimToken token, int attempt) {
    return new DefaultHandlerContext(
        message, key, token, attempt, invoker, config.keys(), classifier, results, tracing);
  }

  @Override
  public java.util.List<Disposition> processAll(
      java.util.List<Message> messages, BatchFollowUp followUp) {
    if (batches == null) {
      return MessageProcessor.super.processAll(messages, followUp);
    }
    if (messages.isEmpty()) {
      return java.util.List.of();
    }
    Tracing.Span span = tracing.batch(messages);
    try {
      java.util.List<Disposition> found = batches.process(messages);
      java.util.List<Disposition> out = new java.util.ArrayList<>(found.size());
      for (int i = 0; i < found.size(); i++) {
        out.add(followUp.apply(i, found.get(i)));
      }
      span.outcomes(messages, out);
      return out;
    } catch (RuntimeException | Error e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
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
      if (!preparer.isTransientDecodeFailure(e)) {
        return preparer.poison(message, e);
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
              if (preparer.isTransientDecodeFailure(again)) {
                throw again;
              }
              return preparer.poison(message, again);
            }
            return processDecoded(message, decoded);
          });
    }
    return processDecoded(message, value);
  }

  private Disposition processDecoded(Message message, T value) {
    Preparer.Resolved resolved = preparer.resolve(message, value);
    if (resolved instanceof Preparer.Rejected rejected) {
      return rejected.disposition();
    }
    if (resolved instanceof Preparer.Unkeyed) {
      return withRetries(
          message, null, message::deliveryAttempt, attempt -> runUnkeyed(message, value, attempt));
    }
    Preparer.Keyed keyed = (Preparer.Keyed) resolved;
    MessageBudget budget = new MessageBudget(message, config.retry(), classifier);
    return withRetries(
        message,
        keyed.key(),
        budget::deliveries,
        attempt -> {
          budget.attempt(attempt);
          return runKeyed(message, value, keyed.key(), keyed.fingerprint(), attempt, budget);
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
    for (int attempt = 1; ; attempt++) {
      try {
        return body.run(attempt);
      } catch (Exception e) {
        Disposition verdict = verdicts.afterFailure(message, key, e, attempt, deliveries);
        if (verdict != null) {
          return verdict;
        }
        long start = time.nanoTime();
        try {
          time.sleep(retryBackoff(attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return verdicts.interrupted(message, key, e, attempt);
        }
        verdicts.retried(message, key, attempt, e, Duration.ofNanos(time.nanoTime() - start));
      }
    }
  }

  /** The backoff before in-process attempt {@code attempt + 1}. */
  Duration retryBackoff(int attempt) {
    return Duration.ofMillis(retryBackoff.apply(attempt));
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
      return verdicts.deadLetter(message, key, DeadLetterReason.KEY_REUSE, e, attempt);
    } catch (CrashLoopException e) {
      return verdicts.deadLetter(message, key, DeadLetterReason.CRASH_LOOP, e, attempt);
    }
    return verdicts.of(message, key, result, handlerNanos[0]);
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
    return verdicts.of(message, null, result, handlerNanos[0]);
  }

  private Object runHandler(
      Message message, T value, String key, ClaimToken token, int attempt, long[] handlerNanos)
      throws Exception {
    long start = System.nanoTime();
    DefaultHandlerContext context = context(message, key, token, attempt);
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
}
