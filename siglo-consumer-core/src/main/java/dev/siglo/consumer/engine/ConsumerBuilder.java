package dev.siglo.consumer.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.key.FingerprintFunction;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.metrics.SigloMetrics;
import dev.siglo.consumer.store.CoalescingIdempotencyStore;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import java.util.Objects;

/**
 * The engine settings every runtime builder shares (store, key extractor, key scheme, classifier,
 * retries, idempotency options, listeners, metrics), so Kafka and SQS consumers are configured the
 * same way. Not thread-safe.
 *
 * @param <T> the decoded payload type
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class ConsumerBuilder<T, B extends ConsumerBuilder<T, B>> {
  /** Default {@link #batchSize}: messages handed to a batch handler at once, at most. */
  public static final int DEFAULT_BATCH_SIZE = 100;

  /** Default {@link #batchLinger}: how long a batch that is not full waits for more messages. */
  public static final java.time.Duration DEFAULT_BATCH_LINGER = java.time.Duration.ofMillis(10);

  private final MessageProcessorConfig.Builder<T> engine;
  private final boolean batchHandler;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private java.time.Duration batchLinger = DEFAULT_BATCH_LINGER;
  private IdempotencyStore store;
  private SigloMetrics metrics;
  private IdempotencyStore prepared;
  private RetryConfig retry = RetryConfig.defaults();
  private WorkerThreads workerThreads = WorkerThreads.platform();

  /**
   * @param decoder decodes payloads for the handler
   * @param handler the handler
   * @param defaultExtractor where the key lives unless {@link #keyExtractor} says otherwise
   */
  protected ConsumerBuilder(
      PayloadDecoder<T> decoder,
      MessageHandler<? super T> handler,
      IdempotencyKeyExtractor<? super T> defaultExtractor) {
    this.engine = MessageProcessorConfig.builder(decoder, handler).keyExtractor(defaultExtractor);
    this.batchHandler = false;
  }

  /**
   * A builder for an asynchronous handler: the claim is held until its stage completes (see {@link
   * AsyncMessageHandler}, {@link #asyncTimeout}).
   *
   * @param decoder decodes payloads for the handler
   * @param handler the asynchronous handler
   * @param defaultExtractor where the key lives unless {@link #keyExtractor} says otherwise
   */
  protected ConsumerBuilder(
      PayloadDecoder<T> decoder,
      AsyncMessageHandler<? super T> handler,
      IdempotencyKeyExtractor<? super T> defaultExtractor) {
    this.engine =
        MessageProcessorConfig.asyncBuilder(decoder, handler).keyExtractor(defaultExtractor);
    this.batchHandler = false;
  }

  /**
   * A builder for a batch handler: the runtime hands it up to {@link #batchSize} messages at once
   * (see {@link BatchMessageHandler}, {@link #batchLinger}).
   *
   * @param decoder decodes payloads for the handler
   * @param handler the batch handler
   * @param defaultExtractor where the key lives unless {@link #keyExtractor} says otherwise
   */
  protected ConsumerBuilder(
      PayloadDecoder<T> decoder,
      BatchMessageHandler<T> handler,
      IdempotencyKeyExtractor<? super T> defaultExtractor) {
    this.engine =
        MessageProcessorConfig.batchBuilder(decoder, handler).keyExtractor(defaultExtractor);
    this.batchHandler = true;
  }

  /**
   * The most messages handed to the batch handler at once (default {@link #DEFAULT_BATCH_SIZE}). A
   * batch holds at most one message of each lane (a key or partition with Kafka's ordering, an SQS
   * FIFO group), so it fills only when that many lanes have a message ready.
   *
   * @param size at least 1
   * @return this builder
   * @throws dev.siglo.consumer.error.SigloConfigurationException when the handler is not a batch
   *     handler
   */
  public B batchSize(int size) {
    requireBatchHandler("batchSize");
    if (size < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, was " + size);
    }
    this.batchSize = size;
    return self();
  }

  /**
   * How long a batch that is not full waits for more messages before the handler gets it (default
   * {@link #DEFAULT_BATCH_LINGER}); zero hands over whatever is ready at once.
   *
   * @param linger not negative
   * @return this builder
   * @throws dev.siglo.consumer.error.SigloConfigurationException when the handler is not a batch
   *     handler
   */
  public B batchLinger(java.time.Duration linger) {
    requireBatchHandler("batchLinger");
    this.batchLinger =
        dev.siglo.consumer.support.Durations.requireNonNegative(linger, "batchLinger");
    return self();
  }

  private void requireBatchHandler(String setting) {
    if (!batchHandler) {
      throw new dev.siglo.consumer.error.SigloConfigurationException(
          setting + " applies to a batch handler only (build the consumer with batchBuilder)");
    }
  }

  /**
   * @return how the runtime hands messages over: batches for a batch handler, else {@link
   *     Batching#NONE}
   */
  protected final Batching batching() {
    return batchHandler ? new Batching(batchSize, batchLinger) : Batching.NONE;
  }

  /**
   * How long an asynchronous handler's stage may take (default {@link
   * MessageProcessorConfig#DEFAULT_ASYNC_TIMEOUT}); past it the stage is cancelled and the message
   * fails transiently (released and retried). Ignored for a synchronous handler.
   *
   * @param timeout positive
   * @return this builder
   */
  public B asyncTimeout(java.time.Duration timeout) {
    engine.asyncTimeout(timeout);
    return self();
  }

  /**
   * The threads handlers run on (default {@link WorkerThreads#platform()}); at most the consumer's
   * concurrency run at once whichever is chosen. With {@link WorkerThreads#virtualThreads()} (JDK
   * 21+) a concurrency of thousands is cheap for handlers that block on I/O.
   *
   * @param threads platform, virtual or per-task threads
   * @return this builder
   */
  public B workerThreads(WorkerThreads threads) {
    this.workerThreads = Objects.requireNonNull(threads, "workerThreads");
    return self();
  }

  /**
   * @return the worker threads the runtime creates its executor with
   */
  protected final WorkerThreads workerThreads() {
    return workerThreads;
  }

  /**
   * @return this builder, typed as the concrete builder
   */
  protected abstract B self();

  /**
   * @param store the idempotency store (in-memory by default; Redis or PostgreSQL to share it)
   * @return this builder
   */
  public B store(IdempotencyStore store) {
    this.store = Objects.requireNonNull(store, "store");
    return self();
  }

  /**
   * Records Micrometer metrics: messages by outcome, handler time, store operation time, in-flight
   * work (see {@link SigloMetrics}). Needs {@code io.micrometer:micrometer-core} on the class path.
   *
   * @param registry the registry
   * @return this builder
   */
  public B metrics(io.micrometer.core.instrument.MeterRegistry registry) {
    this.metrics = SigloMetrics.of(registry);
    return self();
  }

  /**
   * @param extractor where the key lives
   * @return this builder
   */
  public B keyExtractor(IdempotencyKeyExtractor<? super T> extractor) {
    engine.keyExtractor(extractor);
    return self();
  }

  /**
   * What happens to a message whose key extractor finds no key: {@link MissingKeyPolicy#REJECT}
   * (default, dead-lettered) or {@link MissingKeyPolicy#PROCESS_WITHOUT_IDEMPOTENCY} (handled
   * without a claim, at least once).
   *
   * @param policy the policy
   * @return this builder
   */
  public B missingKeyPolicy(MissingKeyPolicy policy) {
    engine.missingKeyPolicy(policy);
    return self();
  }

  /**
   * @param keys the key scheme (namespace, version)
   * @return this builder
   */
  public B keys(IdempotencyKeys keys) {
    engine.keys(keys);
    return self();
  }

  /**
   * @param classifier the error classifier
   * @return this builder
   */
  public B classifier(ErrorClassifier classifier) {
    engine.classifier(classifier);
    return self();
  }

  /**
   * @param retry in-process attempts, redelivery backoff and maximum deliveries
   * @return this builder
   */
  public B retry(RetryConfig retry) {
    engine.retry(retry);
    this.retry = retry;
    return self();
  }

  /**
   * @param options ttl, lease, settle timeout and poll interval of message claims
   * @return this builder
   */
  public B idempotency(IdempotencyConfig options) {
    engine.idempotency(options);
    return self();
  }

  /**
   * Traces each message with OpenTelemetry, parented on the producer's context (see {@link
   * MessageProcessorConfig.Builder#tracing}).
   *
   * @param openTelemetry the application's OpenTelemetry
   * @return this builder
   */
  public B tracing(io.opentelemetry.api.OpenTelemetry openTelemetry) {
    return tracing(openTelemetry, false);
  }

  /**
   * @param openTelemetry the application's OpenTelemetry
   * @param linkToProducer link the consumer span to the producer's context instead of parenting it
   *     there
   * @return this builder
   */
  public B tracing(io.opentelemetry.api.OpenTelemetry openTelemetry, boolean linkToProducer) {
    engine.tracing(openTelemetry, linkToProducer);
    return self();
  }

  /**
   * @param listener receives events
   * @return this builder
   */
  public B listener(SigloEventListener listener) {
    engine.listener(listener);
    return self();
  }

  /**
   * Pauses intake while {@code condition} holds (see {@link
   * MessageProcessorConfig.Builder#pauseWhile}): no new handler starts, nothing is spent from the
   * messages' deliveries, and intake resumes by itself once it no longer holds.
   *
   * @param reason what the pause is reported as
   * @param condition whether to pause now; quick and thread-safe
   * @return this builder
   */
  public B pauseWhile(String reason, java.util.function.BooleanSupplier condition) {
    engine.pauseWhile(reason, condition);
    return self();
  }

  /**
   * Pauses intake while a resilience4j circuit breaker is open (or forced open): a dependency every
   * message needs is down, so taking messages would only spend their deliveries. A half-open
   * breaker lets work through, so its trial calls can close it. Needs {@code
   * io.github.resilience4j:resilience4j-circuitbreaker} on the class path.
   *
   * @param breaker the breaker the handler's calls go through
   * @return this builder
   */
  public B pauseWhileOpen(io.github.resilience4j.circuitbreaker.CircuitBreaker breaker) {
    Objects.requireNonNull(breaker, "breaker");
    return pauseWhile(
        "circuit breaker '" + breaker.getName() + "' is open",
        () -> {
          io.github.resilience4j.circuitbreaker.CircuitBreaker.State s = breaker.getState();
          return s == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.OPEN
              || s == io.github.resilience4j.circuitbreaker.CircuitBreaker.State.FORCED_OPEN;
        });
  }

  /**
   * @param hook a message-level {@code onAfter} hook: runs after the handler returned, before the
   *     outcome is recorded, so a failing hook fails the message like a failing handler; hooks run
   *     in the order added
   * @return this builder
   */
  public B onAfter(MessageHook hook) {
    engine.onAfter(hook);
    return self();
  }

  /**
   * @param fingerprint what a redelivery's payload must match to reuse a key (see {@link
   *     dev.siglo.consumer.key.Fingerprints})
   * @return this builder
   */
  public B fingerprint(FingerprintFunction fingerprint) {
    engine.fingerprint(fingerprint);
    return self();
  }

  /**
   * @param resultMapper the Jackson mapper that turns handler and step results into stored JSON
   * @return this builder
   */
  public B resultMapper(ObjectMapper resultMapper) {
    engine.resultMapper(resultMapper);
    return self();
  }

  /**
   * The store the runtime uses: the configured one (or a new in-memory one), its concurrent claims
   * and completions coalesced into batches when it {@linkplain IdempotencyStore#prefersBatches
   * prefers batches}, timed when metrics are on. Decided once; later calls return the same store.
   *
   * @return the store
   */
  protected final IdempotencyStore effectiveStore() {
    if (prepared == null) {
      prepared = store != null ? store : InMemoryIdempotencyStore.of();
      if (prepared.prefersBatches()) {
        prepared = new CoalescingIdempotencyStore(prepared);
      }
      if (metrics != null) {
        prepared = metrics.timed(prepared);
        engine.listener(metrics);
      }
      engine.store(prepared);
    }
    return prepared;
  }

  /**
   * @return a processor on {@link #effectiveStore()}
   */
  protected final MessageProcessor processor() {
    effectiveStore();
    return MessageProcessor.of(engine.build());
  }

  /**
   * @return the retry settings the engine will use
   */
  protected final RetryConfig retryConfig() {
    return retry;
  }

  /**
   * @return the metrics, or {@code null} when off
   */
  protected final SigloMetrics metricsOrNull() {
    return metrics;
  }
}
