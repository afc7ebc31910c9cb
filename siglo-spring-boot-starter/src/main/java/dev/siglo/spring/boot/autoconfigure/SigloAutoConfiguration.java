package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloConsumerCustomizer;
import dev.siglo.spring.boot.SigloConsumers;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The consumers of {@code siglo.consumers.<name>.*}, one {@link SigloConsumers} bean: each
 * consumer's handler is its {@code handler} bean (or the context's only {@code MessageHandler}),
 * its store the shared {@link IdempotencyStore} bean, its metrics Boot's {@code MeterRegistry} when
 * there is one, its traces the application's {@code OpenTelemetry} bean when there is one, and
 * every {@link SigloConsumerCustomizer} bean runs on its builder. Kafka consumers need
 * dev.siglo:siglo-kafka, SQS consumers dev.siglo:siglo-sqs. Everything is checked while the context
 * starts; a wrong property stops it with Boot's failure report naming the property. An
 * application's own {@code SigloConsumers} bean replaces this one.
 */
@AutoConfiguration(
    after = SigloStoreAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"
    })
@ConditionalOnProperty(prefix = "siglo", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SigloProperties.class)
public final class SigloAutoConfiguration {
  private static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

  /** Created by Spring. */
  public SigloAutoConfiguration() {}

  /**
   * @param properties the {@code siglo.*} properties
   * @param store the shared store
   * @param beans the context's beans (handlers, Jackson, Micrometer, OpenTelemetry)
   * @param runtimes the brokers whose modules are present
   * @param customizers the application's customizers
   * @param env the environment, for {@code spring.lifecycle.timeout-per-shutdown-phase}
   * @return the consumers, built and checked, not started
   */
  @Bean
  @ConditionalOnMissingBean
  public SigloConsumers sigloConsumers(
      SigloProperties properties,
      IdempotencyStore store,
      ListableBeanFactory beans,
      ObjectProvider<BrokerRuntime> runtimes,
      ObjectProvider<SigloConsumerCustomizer> customizers,
      Environment env) {
    ConsumerSettingsReader reader =
        new ConsumerSettingsReader(
            beans,
            store,
            optionalBean(beans, "io.micrometer.core.instrument.MeterRegistry"),
            optionalBean(beans, "io.opentelemetry.api.OpenTelemetry"),
            customizers.orderedStream().toList());
    List<BrokerRuntime> available = runtimes.orderedStream().toList();
    List<SigloConsumer> consumers = new ArrayList<>();
    Binder binder = Binder.get(env);
    for (String name : properties.getConsumers().keySet()) {
      ConsumerSettings<?> settings = reader.read(name, effective(name, binder));
      BrokerRuntime runtime =
          available.stream()
              .filter(r -> r.broker() == settings.broker())
              .findFirst()
              .orElseThrow(
                  () ->
                      new SigloPropertyException(
                          settings.property("broker"),
                          "a "
                              + settings.broker().name().toLowerCase(Locale.ROOT)
                              + " consumer needs dev.siglo:siglo-"
                              + settings.broker().name().toLowerCase(Locale.ROOT)
                              + " on the class path"));
      consumers.add(runtime.create(settings));
    }
    Duration phase =
        binder
            .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
            .orElse(DEFAULT_SHUTDOWN_PHASE);
    return new SigloConsumers(consumers, properties.isAutoStartup(), drain(phase));
  }

  /**
   * A consumer's effective settings: {@code siglo.defaults.*}, then {@code
   * siglo.consumers.<name>.*} bound over them (lists replaced, maps merged).
   */
  static SigloProperties.Consumer effective(String name, Binder binder) {
    SigloProperties.Consumer c = new SigloProperties.Consumer();
    binder.bind("siglo.defaults", Bindable.ofInstance(c));
    // adapted, not parsed: a map key may hold capitals, which a canonical name may not
    binder.bind(
        ConfigurationPropertyName.adapt("siglo.consumers." + name, '.'), Bindable.ofInstance(c));
    return c;
  }

  /** Three quarters of the phase's budget drain handlers; the rest commits and leaves. */
  static Duration drain(Duration phase) {
    return phase.multipliedBy(3).dividedBy(4);
  }

  private static Object optionalBean(ListableBeanFactory beans, String type) {
    if (!ClassUtils.isPresent(type, SigloAutoConfiguration.class.getClassLoader())) {
      return null;
    }
    return beans
        .getBeanProvider(
            ClassUtils.resolveClassName(type, SigloAutoConfiguration.class.getClassLoader()))
        .getIfUnique();
  }

  /** Kafka consumers, with dev.siglo:siglo-kafka. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.siglo.kafka.SigloKafkaConsumer")
  static class Kafka {
    @Bean
    BrokerRuntime sigloKafkaRuntime(ListableBeanFactory beans, Environment env) {
      boolean boot =
          ClassUtils.isPresent(
              "org.springframework.boot.kafka.autoconfigure.KafkaProperties",
              Kafka.class.getClassLoader());
      return new KafkaRuntime(
          () -> {
            Map<String, Object> bootProperties = boot ? BootKafka.consumerProperties(beans) : null;
            return bootProperties != null ? bootProperties : KafkaRuntime.fromEnvironment(env);
          });
    }
  }

  /** SQS consumers, with dev.siglo:siglo-sqs. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "dev.siglo.sqs.SigloSqsConsumer")
  static class Sqs {
    @Bean(destroyMethod = "close")
    BrokerRuntime sigloSqsRuntime(
        ListableBeanFactory beans, SigloProperties properties, Environment env) {
      return new SqsRuntime(beans, properties.getSqs(), env);
    }
  }
}
