package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SigloKafkaConsumerIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  private static KafkaTestSupport kafka;

  @BeforeAll
  static void connect() {
    kafka = new KafkaTestSupport(KAFKA.broker());
  }

  @AfterAll
  static void disconnect() {
    kafka.close();
  }

  private static String unique(String name) {
    return name + "-" + System.nanoTime();
  }

  private static void awaitCommittedToEnd(String group, String topic, int partitions) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              Map<TopicPartition, Long> end = kafka.endOffsets(topic, partitions);
              assertThat(kafka.committed(group)).containsAllEntriesOf(end);
            });
  }

  @Test
  void twentyThousandRecordsWithEachKeyPublishedThreeTimesRunEachSideEffectOnce() throws Exception {
    String topic = unique("orders");
    String group = unique("g");
    KAFKA.broker().createTopics(6, topic);
    int keys = 6_667;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        kafka.send(topic, null, null, "order-" + k, "{\"order\":" + k + "}");
      }
    }
    kafka.flush();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    AtomicInteger calls = new AtomicInteger();
    try (SigloKafkaConsumer<String> consumer =
        SigloKafkaConsumer.builder(
                PayloadDecoder.utf8(),
                (String value, HandlerContext ctx) -> {
                  calls.incrementAndGet();
                  effects
                      .computeIfAbsent(
                          ctx.message().header("idempotency-key").orElseThrow(),
                          k -> new AtomicInteger())
                      .incrementAndGet();
                  return value.length();
                })
            .bootstrapServers(KAFKA.broker().bootstrapServers())
            .groupId(group)
            .topics(topic)
            .concurrency(16)
            .build()) {
      consumer.start();
      awaitCommittedToEnd(group, topic, 6);
      assertThat(consumer.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(calls).hasValue(keys);
  }
}
