package dev.siglo.spring.batchboot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.spring.boot.TestHandlers;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.SharedServers;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Boot application whose handler bean is a {@code BatchMessageHandler}, on the embedded Kafka
 * broker: the consumer hands it batches of at most the configured size, duplicates give one effect
 * and a decline stays that message's own.
 */
@SpringBootTest(
    classes = BatchBootTestApp.class,
    properties = {
      "siglo.consumers.ledger.topics=" + SigloBatchBootIT.TOPIC,
      "siglo.consumers.ledger.batch-size=20",
      "siglo.consumers.ledger.batch-linger=50ms"
    })
class SigloBatchBootIT {
  static final String TOPIC = "boot-ledger";
  private static final KafkaBroker KAFKA = SharedServers.kafka();

  @Autowired TestHandlers.BatchPayments handler;

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    KAFKA.createTopics(2, TOPIC, TOPIC + "-dlt");
    registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
  }

  @Test
  void batchesOfTheConfiguredSizeGiveOneEffectPerOrderAndADeclineStaysItsOwn() throws Exception {
    try (KafkaTestSupport kafka = new KafkaTestSupport(KAFKA)) {
      for (int copy = 0; copy < 2; copy++) {
        for (int i = 0; i < 40; i++) {
          kafka.send(TOPIC, null, "o-" + i, "o-" + i, payment("o-" + i, 100 + i));
        }
      }
      kafka.send(TOPIC, null, "declined", "declined", payment("declined", -5));
      kafka.flush();
      kafka.awaitCommittedToEnd("ledger", TOPIC, 2);
    }
    assertThat(handler.effects).hasSize(40).doesNotContainKey("declined");
    assertThat(handler.effects.values()).allMatch(n -> n.get() == 1);
    assertThat(handler.batchSizes).allMatch(n -> n <= 20).anyMatch(n -> n > 1);
  }

  private static String payment(String orderId, long amount) {
    return "{\"orderId\":\"" + orderId + "\",\"amount\":" + amount + "}";
  }
}
