package dev.siglo.spring.boot.autoconfigure;

import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;

/**
 * Boot's Kafka consumer properties ({@link KafkaProperties#buildConsumerProperties()}), their
 * bootstrap servers from Boot's {@link KafkaConnectionDetails} (a service connection's, when there
 * is one), or null when the context has no {@code KafkaProperties} (Boot's Kafka auto-configuration
 * is off). A class of its own: loaded only when spring-boot-kafka is present.
 */
final class BootKafka {
  private BootKafka() {}

  static Map<String, Object> consumerProperties(ListableBeanFactory beans) {
    KafkaProperties kafka = beans.getBeanProvider(KafkaProperties.class).getIfAvailable();
    if (kafka == null) {
      return null;
    }
    Map<String, Object> props = kafka.buildConsumerProperties();
    KafkaConnectionDetails details =
        beans.getBeanProvider(KafkaConnectionDetails.class).getIfAvailable();
    if (details != null) {
      props.put(
          org.apache.kafka.clients.CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
          String.join(",", details.getConsumer().getBootstrapServers()));
    }
    return props;
  }
}
