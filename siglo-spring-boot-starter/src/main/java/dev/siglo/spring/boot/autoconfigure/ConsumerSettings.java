package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.Batching;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.engine.HandlerShape;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloConsumerCustomizer;
import dev.siglo.spring.boot.SigloProperties;
import java.util.List;

/**
 * One consumer's settings, read and checked from its properties ({@link ConsumerSettingsReader}),
 * and what both runtimes' builders get from them.
 *
 * @param name the consumer's name
 * @param props its properties
 * @param broker its broker, given or inferred
 * @param decoder the payload decoder
 * @param handler the handler bean, of one of the three shapes
 * @param store the shared store
 * @param classifier the classifier
 * @param retry the retry settings
 * @param idempotency the idempotency settings
 * @param keys the stored keys' namespace and version
 * @param extractor the key extractor, or null for the broker's default
 * @param workerThreads the threads handlers run on
 * @param meterRegistry Boot's {@code MeterRegistry}, or null (typed Object: Micrometer is optional)
 * @param openTelemetry the application's {@code OpenTelemetry}, or null (optional too)
 * @param customizers the application's customizers, in order
 * @param <T> the payload type
 */
record ConsumerSettings<T>(
    String name,
    SigloProperties.Consumer props,
    SigloProperties.Broker broker,
    PayloadDecoder<T> decoder,
    HandlerShape<T> handler,
    IdempotencyStore store,
    ErrorClassifier classifier,
    RetryConfig retry,
    IdempotencyConfig idempotency,
    IdempotencyKeys keys,
    IdempotencyKeyExtractor<Object> extractor,
    WorkerThreads workerThreads,
    Object meterRegistry,
    Object openTelemetry,
    List<SigloConsumerCustomizer> customizers) {

  /**
   * @param property a property under the consumer, for example {@code topics}
   * @return its full name, {@code siglo.consumers.<name>.<property>}
   */
  String property(String property) {
    return "siglo.consumers." + name + "." + property;
  }

  /** Sets what both runtimes share, then runs the customizers. */
  <B extends ConsumerBuilder<T, B>> B apply(B builder, SigloConsumer.PauseTracker pauses) {
    handler.configure(
        builder,
        new Batching(props.getBatchSize(), props.getBatchLinger()),
        props.getAsyncTimeout());
    builder
        .store(store)
        .classifier(classifier)
        .retry(retry)
        .keys(keys)
        .idempotency(idempotency)
        .workerThreads(workerThreads)
        .listener(pauses);
    if (extractor != null) {
      builder.keyExtractor(extractor);
    }
    if (meterRegistry != null) {
      builder.metrics((io.micrometer.core.instrument.MeterRegistry) meterRegistry);
    }
    if (openTelemetry != null && props.getTracing() != SigloProperties.Tracing.OFF) {
      builder.tracing(
          (io.opentelemetry.api.OpenTelemetry) openTelemetry,
          props.getTracing() == SigloProperties.Tracing.LINK);
    }
    customizers.forEach(c -> c.customize(name, builder));
    return builder;
  }
}
