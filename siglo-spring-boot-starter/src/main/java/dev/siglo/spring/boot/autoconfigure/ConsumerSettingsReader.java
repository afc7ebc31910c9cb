package dev.siglo.spring.boot.autoconfigure;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
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
    MessageHandler<?> handler = handler(prefix, p);
    Class<?> payload = payloadType(prefix, p, handler);
    return settings(name, prefix, p, payload, handler);
  }

  @SuppressWarnings("unchecked")
  private <T> ConsumerSettings<T> settings(
      String name,
      String prefix,
      SigloProperties.Consumer p,
      Class<T> payload,
      MessageHandler<?> handler) {
    if (p.getConcurrency() < 1) {
      throw new SigloPropertyException(
          prefix + "concurrency", "must be at least 1, was " + p.getConcurrency());
    }
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
        (MessageHandler<T>) handler,
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

  private MessageHandler<?> handler(String prefix, SigloProperties.Consumer p) {
    if (p.getHandler() != null) {
      Object bean;
      try {
        bean = beans.getBean(p.getHandler());
      } catch (NoSuchBeanDefinitionException e) {
        throw new SigloPropertyException(
            prefix + "handler",
            "no bean named '"
                + p.getHandler()
                + "' (MessageHandler beans: "
                + List.of(beans.getBeanNamesForType(MessageHandler.class))
                + ")");
      }
      if (!(bean instanceof MessageHandler<?> h)) {
        throw new SigloPropertyException(
            prefix + "handler",
            "the bean '"
                + p.getHandler()
                + "' is a "
                + bean.getClass().getName()
                + ", not a dev.siglo.consumer.MessageHandler");
      }
      return h;
    }
    @SuppressWarnings("rawtypes")
    Map<String, MessageHandler> all = beans.getBeansOfType(MessageHandler.class);
    if (all.size() != 1) {
      throw new SigloPropertyException(
          prefix + "handler",
          all.isEmpty()
              ? "the context has no MessageHandler bean: declare one (@Component or @Bean)"
              : "the context has several MessageHandler beans "
                  + all.keySet()
                  + ": name one of them");
    }
    return all.values().iterator().next();
  }

  /** The payload type given, else the handler's type argument, else String. */
  private static Class<?> payloadType(
      String prefix, SigloProperties.Consumer p, MessageHandler<?> handler) {
    Class<?> handles =
        ResolvableType.forClass(handler.getClass())
            .as(MessageHandler.class)
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
