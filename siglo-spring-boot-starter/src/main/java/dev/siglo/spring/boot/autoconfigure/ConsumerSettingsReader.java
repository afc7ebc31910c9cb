package dev.siglo.spring.boot.autoconfigure;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.HandlerShape;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.spring.boot.SigloConsumerCustomizer;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.core.ResolvableType;

/**
 * Reads one consumer's properties into {@link ConsumerSettings}, checking each: the handler bean,
 * the payload type against the handler's, the broker, the key source, classification, retry and
 * idempotency settings. Every problem is a {@link SigloPropertyException} naming the property.
 */
final class ConsumerSettingsReader {
  private final ListableBeanFactory beans;
  private final IdempotencyStore store;
  private final Object meterRegistry;
  private final Object openTelemetry;
  private final List<SigloConsumerCustomizer> customizers;

  ConsumerSettingsReader(
      ListableBeanFactory beans,
      IdempotencyStore store,
      Object meterRegistry,
      Object openTelemetry,
      List<SigloConsumerCustomizer> customizers) {
    this.beans = beans;
    this.store = store;
    this.meterRegistry = meterRegistry;
    this.openTelemetry = openTelemetry;
    this.customizers = customizers;
  }

  ConsumerSettings<?> read(String name, SigloProperties.Consumer p) {
    String prefix = "siglo.consumers." + name + ".";
    HandlerShape<?> handler = handler(prefix, p);
    Class<?> payload = payloadType(prefix, p, handler);
    return settings(name, prefix, p, payload, handler);
  }

  @SuppressWarnings("unchecked")
  private <T> ConsumerSettings<T> settings(
      String name,
      String prefix,
      SigloProperties.Consumer p,
      Class<T> payload,
      HandlerShape<?> handler) {
    if (p.getConcurrency() < 1) {
      throw new SigloPropertyException(
          prefix + "concurrency", "must be at least 1, was " + p.getConcurrency());
    }
    shapeSettings(prefix, p, handler);
    WorkerThreads workerThreads;
    try {
      workerThreads =
          p.getWorkerThreads() == SigloProperties.WorkerThreadKind.VIRTUAL
              ? WorkerThreads.virtualThreads()
              : WorkerThreads.platform();
    } catch (SigloConfigurationException e) {
      throw new SigloPropertyException(prefix + "worker-threads", e.getMessage());
    }
    return new ConsumerSettings<>(
        name,
        p,
        broker(prefix, p),
        decoder(payload),
        (HandlerShape<T>) handler,
        store,
        classifier(prefix, p.getClassification()),
        retry(prefix, p.getRetry()),
        idempotency(prefix, p.getIdempotency()),
        keys(prefix, p),
        extractor(prefix, p),
        workerThreads,
        meterRegistry,
        openTelemetry,
        customizers);
  }

  /**
   * The handler bean: the one named, else the context's only bean of the three handler shapes
   * (MessageHandler, AsyncMessageHandler, BatchMessageHandler).
   */
  private HandlerShape<?> handler(String prefix, SigloProperties.Consumer p) {
    Map<String, Object> all = new java.util.LinkedHashMap<>();
    for (HandlerShape.Kind kind : HandlerShape.Kind.values()) {
      all.putAll(beans.getBeansOfType(kind.type()));
    }
    Object bean;
    if (p.getHandler() != null) {
      try {
        bean = beans.getBean(p.getHandler());
      } catch (NoSuchBeanDefinitionException e) {
        throw new SigloPropertyException(
            prefix + "handler",
            "no bean named '" + p.getHandler() + "' (handler beans: " + all.keySet() + ")");
      }
    } else if (all.size() == 1) {
      bean = all.values().iterator().next();
    } else {
      throw new SigloPropertyException(
          prefix + "handler",
          all.isEmpty()
              ? "the context has no handler bean (MessageHandler, AsyncMessageHandler or"
                  + " BatchMessageHandler): declare one (@Component or @Bean)"
              : "the context has several handler beans " + all.keySet() + ": name one of them");
    }
    try {
      return HandlerShape.of(bean);
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(
          prefix + "handler",
          "the bean '" + p.getHandler() + "' is not a handler: " + e.getMessage());
    }
  }

  /** The batch and async settings belong to their shape: set for another, they are a mistake. */
  private static void shapeSettings(
      String prefix, SigloProperties.Consumer p, HandlerShape<?> handler) {
    SigloProperties.Consumer defaults = new SigloProperties.Consumer();
    boolean batch = handler.kind() == HandlerShape.Kind.BATCH;
    if (!batch && p.getBatchSize() != defaults.getBatchSize()) {
      throw new SigloPropertyException(
          prefix + "batch-size", "applies to a BatchMessageHandler; the handler is " + handler);
    }
    if (!batch && !p.getBatchLinger().equals(defaults.getBatchLinger())) {
      throw new SigloPropertyException(
          prefix + "batch-linger", "applies to a BatchMessageHandler; the handler is " + handler);
    }
    if (handler.kind() != HandlerShape.Kind.ASYNC
        && !p.getAsyncTimeout().equals(defaults.getAsyncTimeout())) {
      throw new SigloPropertyException(
          prefix + "async-timeout", "applies to an AsyncMessageHandler; the handler is " + handler);
    }
    if (p.getBatchSize() < 1) {
      throw new SigloPropertyException(
          prefix + "batch-size", "must be at least 1, was " + p.getBatchSize());
    }
    if (p.getBatchLinger().isNegative()) {
      throw new SigloPropertyException(
          prefix + "batch-linger", "must not be negative, was " + p.getBatchLinger());
    }
    if (p.getAsyncTimeout().isNegative() || p.getAsyncTimeout().isZero()) {
      throw new SigloPropertyException(
          prefix + "async-timeout", "must be positive, was " + p.getAsyncTimeout());
    }
  }

  /** The payload type given, else the handler's type argument, else String. */
  private static Class<?> payloadType(
      String prefix, SigloProperties.Consumer p, HandlerShape<?> shape) {
    Object handler = shape.handler();
    Class<?> handles =
        ResolvableType.forClass(handler.getClass())
            .as(shape.kind().type())
            .getGeneric(0)
            .resolve(Object.class);
    Class<?> payload = p.getPayloadType();
    if (payload == null) {
      return handles == Object.class ? String.class : handles;
    }
    if (!handles.isAssignableFrom(payload)) {
      throw new SigloPropertyException(
          prefix + "payload-type",
          payload.getName()
              + " cannot be given to "
              + handler.getClass().getName()
              + ", which handles "
              + handles.getName());
    }
    return payload;
  }

  @SuppressWarnings("unchecked")
  private <T> PayloadDecoder<T> decoder(Class<T> type) {
    if (type == String.class) {
      return (PayloadDecoder<T>) PayloadDecoder.utf8();
    }
    if (type == byte[].class) {
      return (PayloadDecoder<T>) PayloadDecoder.bytes();
    }
    ObjectMapper mapper =
        beans
            .getBeanProvider(ObjectMapper.class)
            .getIfUnique(() -> new ObjectMapper().findAndRegisterModules());
    return PayloadDecoder.json(mapper, type);
  }

  private static SigloProperties.Broker broker(String prefix, SigloProperties.Consumer p) {
    boolean topics = !p.getTopics().isEmpty();
    boolean queue = p.getQueue() != null;
    if (topics && queue) {
      throw new SigloPropertyException(
          prefix + "queue", "a consumer reads topics (kafka) or a queue (sqs), not both");
    }
    SigloProperties.Broker inferred =
        topics ? SigloProperties.Broker.KAFKA : queue ? SigloProperties.Broker.SQS : null;
    SigloProperties.Broker broker = p.getBroker() != null ? p.getBroker() : inferred;
    if (broker == null) {
      throw new SigloPropertyException(
          prefix + "topics", "set the topics (a Kafka consumer) or the queue (an SQS consumer)");
    }
    if (inferred != null && inferred != broker) {
      throw new SigloPropertyException(
          prefix + "broker",
          broker.name().toLowerCase(java.util.Locale.ROOT)
              + " does not read "
              + (topics ? "topics" : "a queue"));
    }
    if (inferred == null) {
      throw new SigloPropertyException(
          prefix + (broker == SigloProperties.Broker.KAFKA ? "topics" : "queue"),
          "is required for a " + broker.name().toLowerCase(java.util.Locale.ROOT) + " consumer");
    }
    return broker;
  }

  private static ErrorClassifier classifier(String prefix, SigloProperties.Classification c) {
    Properties rules = new Properties();
    if (!c.getPermanent().isEmpty()) {
      rules.setProperty(ErrorClassifier.KEY_PERMANENT, String.join(",", c.getPermanent()));
    }
    if (!c.getTransient().isEmpty()) {
      rules.setProperty(ErrorClassifier.KEY_TRANSIENT, String.join(",", c.getTransient()));
    }
    if (c.getPermanentMessagePattern() != null) {
      rules.setProperty(ErrorClassifier.KEY_PERMANENT_MESSAGE, c.getPermanentMessagePattern());
    }
    if (c.getTransientMessagePattern() != null) {
      rules.setProperty(ErrorClassifier.KEY_TRANSIENT_MESSAGE, c.getTransientMessagePattern());
    }
    rules.setProperty(ErrorClassifier.KEY_DEFAULT, c.getDefault());
    try {
      return ErrorClassifier.fromProperties(
          rules, prefix + "classification", Thread.currentThread().getContextClassLoader());
    } catch (SigloConfigurationException e) {
      throw new SigloPropertyException(
          prefix + "classification",
          e.getMessage()
              .replace(prefix + "classification: ", "")
              .replace("siglo.classification.", prefix + "classification."));
    }
  }

  private static RetryConfig retry(String prefix, SigloProperties.Retry r) {
    try {
      return RetryConfig.custom()
          .maxAttempts(r.getMaxAttempts())
          .maxDeliveries(r.getMaxDeliveries())
          .maxTakeovers(r.getMaxTakeovers())
          .backoff(r.getBackoff(), r.getMaxBackoff())
          .build();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new SigloPropertyException(prefix + "retry", e.getMessage());
    }
  }

  private static IdempotencyConfig idempotency(String prefix, SigloProperties.Idempotency i) {
    try {
      return IdempotencyConfig.custom()
          .ttl(i.getTtl())
          .lease(i.getLease())
          .settleTimeout(i.getSettleTimeout())
          .pollInterval(i.getPollInterval())
          .build();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new SigloPropertyException(prefix + "idempotency", e.getMessage());
    }
  }

  private static IdempotencyKeys keys(String prefix, SigloProperties.Consumer p) {
    try {
      return IdempotencyKeys.custom()
          .namespace(p.getKeyNamespace())
          .version(p.getKeyVersion())
          .build();
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(prefix + "key-namespace", e.getMessage());
    }
  }

  private static IdempotencyKeyExtractor<Object> extractor(
      String prefix, SigloProperties.Consumer p) {
    if (p.getKeySource() == null) {
      return null;
    }
    try {
      return KeyExtractors.parse(p.getKeySource());
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(prefix + "key-source", e.getMessage());
    }
  }
}
