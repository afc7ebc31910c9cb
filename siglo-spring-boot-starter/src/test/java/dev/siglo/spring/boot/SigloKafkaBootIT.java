package dev.siglo.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.SharedServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Boot application on the embedded Kafka broker, its client from Boot's {@code spring.kafka.*},
 * its store PostgreSQL on Boot's {@code DataSource}, everything else from {@code application}
 * properties: duplicates give one effect, a decline is cached, poison goes to the dead-letter topic
 * with its reason, the health endpoint reports the consumer, Boot's registry holds its metrics.
 */
@SpringBootTest(
    classes = BootTestApp.class,
    properties = {
      "siglo.store.type=postgres",
      "siglo.store.postgres.table=boot_kafka",
      "siglo.consumers.payments.topics=" + SigloKafkaBootIT.TOPIC,
      "siglo.consumers.payments.group-id=boot-payments",
      "management.endpoint.health.show-details=always"
    })
class SigloKafkaBootIT {
  static final String TOPIC = "boot-payments";
  private static final KafkaBroker KAFKA = SharedServers.kafka();
  private static final PostgresServer POSTGRES = SharedServers.postgres();

  @Autowired TestHandlers.CountingPayments handler;
  @Autowired HealthEndpoint health;
  @Autowired MeterRegistry registry;
  @Autowired dev.siglo.consumer.store.IdempotencyStore store;

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    KAFKA.createTopics(2, TOPIC, TOPIC + "-dlt");
    registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
    registry.add("spring.datasource.url", POSTGRES::jdbcUrl);
  }

  @Test
  void duplicatesGiveOneEffectADeclineIsCachedAndPoisonIsDeadLettered() throws Exception {
    try (KafkaTestSupport kafka = new KafkaTestSupport(KAFKA)) {
      for (int copy = 0; copy < 3; copy++) {
        for (int i = 0; i < 20; i++) {
          kafka.send(TOPIC, null, "o-" + i, "o-" + i, payment("o-" + i, 100 + i));
        }
      }
      kafka.send(TOPIC, null, "declined", "declined", payment("declined", -5));
      kafka.sendRaw(TOPIC, null, "poison", "poison", "{not json".getBytes());
      kafka.flush();
      kafka.awaitCommittedToEnd("boot-payments", TOPIC, 2);
      // the decline again, after the first was recorded: replayed from the store, not re-run
      kafka.send(TOPIC, null, "declined", "declined", payment("declined", -5));
      kafka.flush();
      kafka.awaitCommittedToEnd("boot-payments", TOPIC, 2);

      for (int i = 0; i < 20; i++) {
        assertThat(count(handler.effects, "o-" + i)).as("effects of o-%d", i).isEqualTo(1);
      }
      assertThat(count(handler.runs, "declined")).as("the decline ran once").isEqualTo(1);
      assertThat(count(handler.effects, "declined")).isZero();

      List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(TOPIC + "-dlt", 1);
      assertThat(dead).hasSize(1);
      assertThat(new String(dead.get(0).key())).isEqualTo("poison");
      assertThat(KafkaTestSupport.header(dead.get(0), DeadLetters.KAFKA_HEADER_PREFIX + "reason"))
          .isEqualTo(DeadLetterReason.POISON_PAYLOAD.name());
      assertThat(handler.runs).doesNotContainKey("poison");
    }
    assertThat(store)
        .as("the PostgreSQL store on Boot's DataSource")
        .isInstanceOf(PostgresIdempotencyStore.class);
    assertThat(registry.find("siglo.messages").tag("outcome", "decline_replayed").counter().count())
        .isEqualTo(1.0);
  }

  @Test
  void theHealthEndpointReportsTheRunningConsumerAndItsStore() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              var payments = (IndicatedHealthDescriptor) health.healthForPath("siglo", "payments");
              assertThat(payments.getStatus().getCode()).isEqualTo("UP");
              assertThat(payments.getDetails())
                  .containsEntry("broker", "kafka")
                  .containsEntry("destination", TOPIC)
                  .containsEntry("running", true)
                  .containsEntry("store", "reachable");
            });
  }

  private static int count(Map<String, AtomicInteger> counts, String key) {
    AtomicInteger n = counts.get(key);
    return n == null ? 0 : n.get();
  }

  static String payment(String orderId, long amount) {
    return "{\"orderId\":\"" + orderId + "\",\"amount\":" + amount + "}";
  }
}
