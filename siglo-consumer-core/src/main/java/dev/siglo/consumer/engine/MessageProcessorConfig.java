package dev.siglo.consumer.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.MessageHook;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.key.FingerprintFunction;
import dev.siglo.consumer.key.Fingerprints;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.support.Durations;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Everything a {@link MessageProcessor} needs, immutable once built. Built by {@link
 * #builder(PayloadDecoder, MessageHandler)}; every setter validates its argument.
 *
 * <p>Defaults: a new {@link InMemoryIdempotencyStore}; keys {@code ff:idemp:_:_:<key>}; key from
 * header {@value #DEFAULT_KEY_HEADER}, else the record key; no payload fingerprint (opt in with
 * {@link Builder#fingerprint}); missing keys rejected; {@link IdempotencyConfig#defaults()}; {@link
 * ErrorClassifier#defaults()}; {@link RetryConfig#defaults()}; JSON results.
 *
 * @param <T> the decoded payload type
 */
public final class MessageProcessorConfig<T> {
  /** Results to JSON by default: a shared mapper with the Jackson modules on the class path. */
  static final ObjectMapper DEFAULT_RESULT_MAPPER = new ObjectMapper().findAndRegisterModules();

  /** The header (Kafka) or message attribute (SQS) read for the key by default. */
  public static final String DEFAULT_KEY_HEADER = "idempotency-key";

  /** How long an {@link AsyncMessageHandler}'s stage may take before it fails transiently. */
  public static final Duration DEFAULT_ASYNC_TIMEOUT = Duration.ofMinutes(1);

  private final PayloadDecoder<T> decoder;
  private final MessageHandler<? super T> handler;
  private final BatchMessageHandler<T> batchHandler;
  private final IdempotencyStore store;
  private final IdempotencyKeys keys;
  private final IdempotencyKeyExtractor<? super T> keyExtractor;
  private final FingerprintFunction fingerprint;
  private final MissingKeyPolicy missingKeyPolicy;
  private final IdempotencyConfig options;
  private final ErrorClassifier classifier;
  private final RetryConfig retry;
  private final ObjectMapper resultMapper;
  private final List<MessageHook> hooks;
  private final List<SigloEventListener> listeners;
  private final List<PauseCondition> pauseConditions;
  private final Time time;
  private final Tracing tracing;

  private MessageProcessorConfig(Builder<T> b) {
    this.decoder = b.decoder;
    this.batchHandler = b.batchHandler;
    if (b.asyncHandler != null) {
      this.handler = new AwaitedStage<>(b.asyncHandler, b.asyncTimeout, b.time);
    } else if (b.batchHandler != null) {
      this.handler = new BatchOfOne<>(b.batchHandler);
    } else {
      this.handler = b.handler;
    }
    this.store = b.store != null ? b.store : InMemoryIdempotencyStore.of();
    this.keys = b.keys;
    this.keyExtractor = b.keyExtractor;
    this.fingerprint = b.fingerprint;
    this.missingKeyPolicy = b.missingKeyPolicy;
    this.options = b.options;
    this.classifier = b.classifier;
    this.retry = b.retry;
    this.resultMapper = b.resultMapper;
    this.hooks = List.copyOf(b.hooks);
    this.listeners = List.copyOf(b.listeners);
    this.pauseConditions = List.copyOf(b.pauseConditions);
    this.time = b.time;
    this.tracing = b.tracing;
  }

  /**
   * @return the tracing points ({@link Tracing#NONE} unless {@link Builder#tracing} was given)
   */
  Tracing tracing() {
    return tracing;
  }

  /**
   * @param decoder decodes payloads for the handler
   * @param handler the handler
   * @param <T> the decoded payload type
   * @return a builder with the defaults
   */
  public static <T> Builder<T> builder(
      PayloadDecoder<T> decoder, MessageHandler<? super T> handler) {
    return new Builder<>(decoder, Objects.requireNonNull(handler, "handler"), null, null);
  }

  /**
   * A configuration for an {@link AsyncMessageHandler}: the worker waits for each stage, up to
   * {@link Builder#asyncTimeout}, and the stage's outcome is the handler's.
   *
   * @param decoder decodes payloads for the handler
   * @param handler the asynchronous handler
   * @param <T> the decoded payload type
   * @return a builder with the defaults
   */
  public static <T> Builder<T> asyncBuilder(
      PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
    return new Builder<>(decoder, null, Objects.requireNonNull(handler, "handler"), null);
  }

  /**
   * A configuration for a {@link BatchMessageHandler}: {@link MessageProcessor#processAll} claims a
   * batch's keys together, hands the handler the messages whose claims it holds, and completes,
   * declines or releases each on its own; {@link MessageProcessor#process} runs one message as a
   * batch of one.
   *
   * @param decoder decodes payloads for the handler
   * @param handler the batch handler
   * @param <T> the decoded payload type
   * @return a builder with the defaults
   */
  public static <T> Builder<T> batchBuilder(
      PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
    return new Builder<>(decoder, null, null, Objects.requireNonNull(handler, "handler"));
  }

  /**
   * @return the payload decoder
   */
  public PayloadDecoder<T> decoder() {
    return decoder;
  }

  /** Whether the handler is a {@link BatchMessageHandler} (the engine then runs batches). */
  boolean batched() {
    return batchHandler != null;
  }

  /** The batch handler, or {@code null}. */
  BatchMessageHandler<T> batchHandler() {
    return batchHandler;
  }

  /**
   * @return the handler (an asynchronous one as the worker runs it: waiting for its stage; a batch
   *     handler as a handler of batches of one)
   */
  public MessageHandler<? super T> handler() {
    return handler;
  }

  /**
   * @return the idempotency store
   */
  public IdempotencyStore store() {
    return store;
  }

  /**
   * @return the key scheme
   */
  public IdempotencyKeys keys() {
    return keys;
  }

  /**
   * @return the key extractor
   */
  public IdempotencyKeyExtractor<? super T> keyExtractor() {
    return keyExtractor;
  }

  /**
   * @return the payload fingerprint
   */
  public FingerprintFunction fingerprint() {
    return fingerprint;
  }

  /**
   * @return the missing-key policy
   */
  public MissingKeyPolicy missingKeyPolicy() {
    return missingKeyPolicy;
  }

  /**
   * @return the message-level idempotency options
   */
  public IdempotencyConfig idempotency() {
    return options;
  }

  /**
   * @return the error classifier
   */
  public ErrorClassifier classifier() {
    return classifier;
  }

  /**
   * @return the retry settings
   */
  public RetryConfig retry() {
    return retry;
  }

  /**
   * @return the Jackson mapper that turns results into the JSON stored in their outcome
   */
  public ObjectMapper resultMapper() {
    return resultMapper;
  }

  /**
   * @return the time the engine waits on (settle polls, retry backoffs, completion retries)
   */
  public Time time() {
    return time;
  }

  /**
   * @return the message-level {@code onAfter} hooks, in order
   */
  public List<MessageHook> hooks() {
    return hooks;
  }

  /**
   * @return the event listeners
   */
  public List<SigloEventListener> listeners() {
    return listeners;
  }

  /** The conditions that pause intake while they hold, in order. */
  List<PauseCondition> pauseConditions() {
    return pauseConditions;
  }

  /**
   * Builds a {@link MessageProcessorConfig}. Not thread-safe.
   *
   * @param <T> the decoded payload type
   */
  public static final class Builder<T> {
    private final PayloadDecoder<T> decoder;
    private final MessageHandler<? super T> handler;
    private final AsyncMessageHandler<? super T> asyncHandler;
    private final BatchMessageHandler<T> batchHandler;
    private Duration asyncTimeout = DEFAULT_ASYNC_TIMEOUT;
    private IdempotencyStore store;
    private IdempotencyKeys keys = IdempotencyKeys.defaults();
    private IdempotencyKeyExtractor<? super T> keyExtractor =
        KeyExtractors.firstPresent(
            KeyExtractors.header(DEFAULT_KEY_HEADER), KeyExtractors.recordKey());
    private FingerprintFunction fingerprint = Fingerprints.none();
    private MissingKeyPolicy missingKeyPolicy = MissingKeyPolicy.REJECT;
    private IdempotencyConfig options = IdempotencyConfig.defaults();
    private ErrorClassifier classifier = ErrorClassifier.defaults();
    private RetryConfig retry = RetryConfig.defaults();
    private ObjectMapper resultMapper = DEFAULT_RESULT_MAPPER;
    private final List<MessageHook> hooks = new ArrayList<>();
    private final List<SigloEventListener> listeners = new ArrayList<>();
    private Tracing tracing = Tracing.NONE;
    private final List<PauseCondition> pauseConditions = new ArrayList<>();
    private Time time = Time.SYSTEM;

    private Builder(
        PayloadDecoder<T> decoder,
        MessageHandler<? super T> handler,
        AsyncMessageHandler<? super T> asyncHandler,
        BatchMessageHandler<T> batchHandler) {
      this.decoder = Objects.requireNonNull(decoder, "decoder");
      this.handler = handler;
      this.asyncHandler = asyncHandler;
      this.batchHandler = batchHandler;
    }

    /**
     * How long an asynchronous handler's stage may take (default {@link #DEFAULT_ASYNC_TIMEOUT});
     * past it the stage is cancelled and the message fails transiently. Ignored for a synchronous
     * handler.
     *
     * @param timeout positive
     * @return this builder
     */
    public Builder<T> asyncTimeout(Duration timeout) {
      this.asyncTimeout = Durations.requirePositive(timeout, "asyncTimeout");
      return this;
    }

    /**
     * @param store the idempotency store (shared between processes for multi-instance consumers)
     * @return this builder
     */
    public Builder<T> store(IdempotencyStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * @param keys the key scheme (prefix, namespace, version, limits)
     * @return this builder
     */
    public Builder<T> keys(IdempotencyKeys keys) {
      this.keys = Objects.requireNonNull(keys, "keys");
      return this;
    }

    /**
     * @param keyExtractor where the key lives
     * @return this builder
     */
    public Builder<T> keyExtractor(IdempotencyKeyExtractor<? super T> keyExtractor) {
      this.keyExtractor = Objects.requireNonNull(keyExtractor, "keyExtractor");
      return this;
    }

    /**
     * @param fingerprint what a later message with the same key must match, else it is
     *     dead-lettered as a key reuse (default {@link Fingerprints#none()}: no check). Prefer
     *     {@link Fingerprints#jsonFields} over the fields that define the request: producers often
     *     stamp a send time or a copy counter, and {@link Fingerprints#payloadSha256()} would then
     *     dead-letter honest redeliveries
     * @return this builder
     */
    public Builder<T> fingerprint(FingerprintFunction fingerprint) {
      this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
      return this;
    }

    /**
     * @param missingKeyPolicy what to do with a message without a key
     * @return this builder
     */
    public Builder<T> missingKeyPolicy(MissingKeyPolicy missingKeyPolicy) {
      this.missingKeyPolicy = Objects.requireNonNull(missingKeyPolicy, "missingKeyPolicy");
      return this;
    }

    /**
     * @param options ttl, lease, settle timeout and poll interval of message claims
     * @return this builder
     */
    public Builder<T> idempotency(IdempotencyConfig options) {
      this.options = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * @param classifier the error classifier
     * @return this builder
     */
    public Builder<T> classifier(ErrorClassifier classifier) {
      this.classifier = Objects.requireNonNull(classifier, "classifier");
      return this;
    }

    /**
     * @param retry the retry settings
     * @return this builder
     */
    public Builder<T> retry(RetryConfig retry) {
      this.retry = Objects.requireNonNull(retry, "retry");
      return this;
    }

    /**
     * @param time the time the engine waits on (default {@link Time#SYSTEM}; tests inject their
     *     own)
     * @return this builder
     */
    public Builder<T> time(Time time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * @param resultMapper the Jackson mapper that turns handler and step results into stored JSON
     *     (default: a mapper with the modules on the class path); shared, never modified
     * @return this builder
     */
    public Builder<T> resultMapper(ObjectMapper resultMapper) {
      this.resultMapper = Objects.requireNonNull(resultMapper, "resultMapper");
      return this;
    }

    /**
     * @param hook a message-level {@code onAfter} hook; hooks run in the order added
     * @return this builder
     */
    public Builder<T> onAfter(MessageHook hook) {
      hooks.add(Objects.requireNonNull(hook, "hook"));
      return this;
    }

    /**
     * @param listener receives events
     * @return this builder
     */
    public Builder<T> listener(SigloEventListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * @param listeners listeners to add, in order
     * @return this builder
     */
    public Builder<T> listeners(java.util.Collection<? extends SigloEventListener> listeners) {
      listeners.forEach(this::listener);
      return this;
    }

    /**
     * Pauses intake while {@code condition} holds: the runtime starts no new handler (Kafka pauses
     * its partitions, SQS stops receiving) and resumes by itself once it no longer holds. Checked
     * every 100 ms on the processor's own thread; a condition that throws counts as holding. Use it
     * for a dependency every message needs (a payment gateway behind a circuit breaker), so its
     * outage does not spend the messages' deliveries.
     *
     * @param reason what the pause is reported as (events, logs)
     * @param condition whether to pause now; must be quick and thread-safe
     * @return this builder
     */
    public Builder<T> pauseWhile(String reason, java.util.function.BooleanSupplier condition) {
      Objects.requireNonNull(reason, "reason");
      if (reason.isBlank()) {
        throw new IllegalArgumentException("reason must not be blank");
      }
      pauseConditions.add(
          new PauseCondition(reason, Objects.requireNonNull(condition, "condition")));
      return this;
    }

    /**
     * Traces each message with OpenTelemetry (needs {@code io.opentelemetry:opentelemetry-api} on
     * the class path): a CONSUMER span per message whose parent is the context its {@code
     * traceparent} header or attribute carries, with the {@code messaging.*} attributes and {@code
     * siglo.outcome}, {@code siglo.attempt}, {@code siglo.duplicate} (never the key or the
     * payload); child spans for each handler attempt (a retry is a second one), each step and each
     * store call. The handler runs with its attempt's span current, so the spans of the user's own
     * HTTP and JDBC clients nest under it.
     *
     * @param openTelemetry the application's OpenTelemetry (its tracer provider and propagators)
     * @param linkToProducer true to link the consumer span to the producer's context instead of
     *     parenting it there (a new trace per message)
     * @return this builder
     */
    public Builder<T> tracing(
        io.opentelemetry.api.OpenTelemetry openTelemetry, boolean linkToProducer) {
      this.tracing =
          new OtelTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"), linkToProducer);
      return this;
    }

    /**
     * @return the configuration
     */
    public MessageProcessorConfig<T> build() {
      return new MessageProcessorConfig<>(this);
    }
  }
}
