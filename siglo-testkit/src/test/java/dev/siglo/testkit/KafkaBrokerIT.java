package dev.siglo.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KafkaBrokerIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @Test
  void theBrokerServesProducersAndConsumerGroups() throws Exception {
    KafkaBroker broker = KAFKA.broker();
    broker.createTopics(3, "smoke");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = 0; i < 30; i++) {
        producer.send(new ProducerRecord<>("smoke", "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
      }
    }
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "smoke-group",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of("smoke"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (values.size() < 30 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
    }
    assertThat(values).hasSize(30);
  }
}
