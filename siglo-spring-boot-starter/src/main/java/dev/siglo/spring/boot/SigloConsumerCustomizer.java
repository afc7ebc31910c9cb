package dev.siglo.spring.boot;

import dev.siglo.consumer.engine.ConsumerBuilder;

/**
 * Adds to a configured consumer what properties cannot say: event listeners, {@code onAfter} hooks,
 * pause conditions (a circuit breaker), a fingerprint, a result mapper. Every customizer bean is
 * called for every consumer, in {@code @Order}, after the properties were applied and before the
 * consumer is built; a customizer that only concerns one consumer checks the name.
 *
 * <pre>{@code
 * @Bean
 * SigloConsumerCustomizer pauseWhileGatewayDown(CircuitBreaker gateway) {
 *   return (name, builder) -> builder.pauseWhileOpen(gateway);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface SigloConsumerCustomizer {
  /**
   * @param name the consumer's name under {@code siglo.consumers}
   * @param builder its builder (a {@code SigloKafkaConsumer.Builder} or {@code
   *     SigloSqsConsumer.Builder})
   */
  void customize(String name, ConsumerBuilder<?, ?> builder);
}
