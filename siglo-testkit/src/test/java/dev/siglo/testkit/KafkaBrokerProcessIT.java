package dev.siglo.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class KafkaBrokerProcessIT {

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void aBrokerKilledWithSigkillRestartsWithItsAcknowledgedRecordsAndCommittedOffsets()
      throws Exception {
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start()) {
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
        admin
            .createTopics(List.of(new NewTopic("durable", 1, (short) 1)))
            .all()
            .get(60, TimeUnit.SECONDS);
      }
      try (KafkaProducer<String, String> p =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  broker.bootstrapServers(),
                  ProducerConfig.ACKS_CONFIG,
                  "all"),
              new StringSerializer(),
              new StringSerializer())) {
        for (int i = 0; i < 10; i++) {
          p.send(new ProducerRecord<>("durable", "k", "v" + i)).get(30, TimeUnit.SECONDS);
        }
      }
      assertThat(consume(broker, "g1", 4, true)).hasSize(4);

      broker.kill();
      broker.startAgain();

      List<String> rest = consume(broker, "g1", 6, false);
      assertThat(rest).containsExactly("v4", "v5", "v6", "v7", "v8", "v9");
    }
  }

  /** Consumes up to {@code max} records; commits exactly what it returns when asked. */
  private static List<String> consume(
      KafkaBrokerProcess broker, String group, int max, boolean commit) {
    List<String> out = new ArrayList<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                max),
            new StringDeserializer(),
            new StringDeserializer())) {
      c.subscribe(List.of("durable"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (out.size() < max && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(r -> out.add(r.value()));
      }
      if (commit) {
        c.commitSync();
      }
    }
    return out;
  }
}
