package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.spring.boot.SigloConsumer;
import dev.siglo.spring.boot.SigloConsumers;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator: a health contributor {@code siglo} with one {@link SigloHealthIndicator} per consumer
 * ({@code /actuator/health/siglo/<name>}; off with {@code management.health.siglo.enabled=false}),
 * and an info contributor {@code siglo} (the store and each consumer's broker, destination and
 * state). Each is replaced by a bean of the application's of the same name.
 */
@AutoConfiguration(after = SigloAutoConfiguration.class)
@ConditionalOnBean(SigloConsumers.class)
public final class SigloActuatorAutoConfiguration {
  /** Created by Spring. */
  public SigloActuatorAutoConfiguration() {}

  /** The health contributor, with spring-boot-health. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnEnabledHealthIndicator("siglo")
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "sigloHealthContributor")
    HealthContributor sigloHealthContributor(SigloConsumers consumers) {
      Map<String, SigloHealthIndicator> each = new LinkedHashMap<>();
      consumers.consumers().forEach(c -> each.put(c.name(), new SigloHealthIndicator(c)));
      return CompositeHealthContributor.fromMap(each);
    }
  }

  /** The info contributor, with spring-boot-actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.info.InfoContributor")
  static class InfoConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "sigloInfoContributor")
    InfoContributor sigloInfoContributor(SigloConsumers consumers, IdempotencyStore store) {
      return builder -> {
        Map<String, Object> each = new LinkedHashMap<>();
        for (SigloConsumer c : consumers.consumers()) {
          each.put(
              c.name(),
              Map.of(
                  "broker", c.broker().name().toLowerCase(Locale.ROOT),
                  "destination", c.destination(),
                  "running", c.isRunning()));
        }
        builder.withDetail(
            "siglo", Map.of("store", store.getClass().getSimpleName(), "consumers", each));
      };
    }
  }
}
