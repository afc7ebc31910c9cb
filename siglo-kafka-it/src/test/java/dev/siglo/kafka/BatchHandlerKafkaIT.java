package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link BatchMessageHandler}s on a real broker, at the default batch size, linger and retries: one
 * effect per key under concurrent duplicates, each message of a batch ending on its own (processed,
 * declined and cached, retried, dead-lettered), and no commit past a message that has not
 * completed.
 */
class BatchHandlerKafkaIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  private static KafkaTestSupport kafka;

  /** Payloads the decoder refuses: poison. */
  private static final PayloadDecoder<String> DECODER =
      m -> {
        String s = new String(m.payload(), StandardCharsets.UTF_8);
        if (s.startsWith("poison")) {
          throw new IllegalArgumentException("unreadable payload");
        }
        return s;
      };

  private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
  private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger deadLettered = new AtomicInteger();

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

  private SigloKafkaConsumer.Builder<String> consumer(
      String group, String topic, BatchMessageHandler<String> handler) {
    return SigloKafkaConsumer.batchBuilder(
            DECODER,
            (List<BatchItem<String>> batch) -> {
              batchSizes.add(batch.size());
              batch.forEach(item -> seen.add(item.value()));
              return handler.handle(batch);
            })
        .bootstrapServers(KAFKA.broker().bootstrapServers())
        .groupId(group)
        .topics(topic)
        .createDeadLetterTopics(true)
        .listener(
            e -> {
              if (e instanceof SigloEvent.DeadLettered) {
                deadLettered.incrementAndGet();
              }
            });
  }

  private void effect(String key) {
    effects.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
  }

  private static String key(BatchItem<String> item) {
    return item.message().header("idempotency-key").orElseThrow();
  }

  @Test
  void eachKeyRunsOnceUnderConcurrentDuplicatesHandledInBatches() throws Exception {
    String topic = unique("batch-dups");
    String group = unique("g");
    KAFKA.broker().createTopics(4, topic);
    int keys = 600;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        // each copy under another record key: copies land on other partitions and run at once
        kafka.send(topic, null, "copy-" + copy + "-" + k, "order-" + k, "{}");
      }
    }
    kafka.flush();
    AtomicInteger duplicates = new AtomicInteger();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                batch -> {
                  batch.forEach(item -> effect(key(item)));
                  return BatchResult.allSucceeded();
                })
            .concurrency(4)
            .listener(
                e -> {
                  if (e instanceof SigloEvent.Duplicate) {
                    duplicates.incrementAndGet();
                  }
                })
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 4);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(duplicates).hasValue(2 * keys);
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).max().orElseThrow())
        .as("records were handed over in batches")
        .isGreaterThan(1)
        .isLessThanOrEqualTo(ConsumerBuilder.DEFAULT_BATCH_SIZE);
  }

  @Test
  void aBatchWithADeclineATransientFailureAndPoisonEndsEachMessageOnItsOwn() throws Exception {
    String topic = unique("batch-mixed");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, "a", "ok-1", "ok-1");
    kafka.send(topic, 0, "b", "declined", "declined");
    kafka.send(topic, 0, "c", "flaky", "flaky");
    kafka.send(topic, 0, "d", "poison", "poison-1");
    kafka.send(topic, 0, "e", null, "no key"); // no header: the record key is the key
    kafka.send(topic, 0, null, null, "no key at all");
    kafka.send(topic, 0, "f", "ok-2", "ok-2");
    kafka.flush();
    AtomicInteger flakyCalls = new AtomicInteger();
    BatchMessageHandler<String> handler =
        batch -> {
          BatchResult.Builder r = BatchResult.builder();
          for (BatchItem<String> item : batch) {
            switch (item.value()) {
              case "declined" -> r.failure(item, new PermanentException("card declined"));
              case "flaky" -> {
                if (flakyCalls.incrementAndGet() == 1) {
                  r.failure(item, new TransientException("gateway timeout"));
                } else {
                  effect(item.value());
                }
              }
              default -> effect(item.value());
            }
          }
          return r.build();
        };
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    try (SigloKafkaConsumer<String> c = consumer(group, topic, handler).store(store).build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 1);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).containsOnlyKeys("ok-1", "flaky", "no key", "ok-2");
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(flakyCalls).hasValue(2);
    assertThat(batchSizes.get(0)).as("the first batch held every claimable record").isEqualTo(5);

    List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(topic + "-dlt", 2);
    assertThat(dead)
        .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.reason"))
        .containsExactlyInAnyOrder("POISON_PAYLOAD", "MISSING_KEY");

    // redelivered: the decline is replayed from the store, the handler does not see it again
    seen.clear();
    kafka.send(topic, 0, "b", "declined", "declined");
    kafka.send(topic, 0, "g", "ok-3", "ok-3");
    kafka.flush();
    try (SigloKafkaConsumer<String> c = consumer(group, topic, handler).store(store).build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 1);
    }
    assertThat(effects).containsKey("ok-3");
    assertThat(seen).containsExactly("ok-3");
  }

  @Test
  void theCommittedOffsetStaysAtAMessageThatHasNotCompletedWhileLaterOnesComplete()
      throws Exception {
    String topic = unique("batch-commit");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, "a", "first", "first");
    kafka.send(topic, 0, "b", "held", "held");
    for (int i = 0; i < 20; i++) {
      kafka.send(topic, 0, "k" + i, "later-" + i, "later-" + i);
    }
    kafka.flush();
    AtomicBoolean gatewayUp = new AtomicBoolean();
    AtomicInteger heldTries = new AtomicInteger();
    TopicPartition p0 = new TopicPartition(topic, 0);
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                batch -> {
                  BatchResult.Builder r = BatchResult.builder();
                  for (BatchItem<String> item : batch) {
                    if (item.value().equals("held") && !gatewayUp.get()) {
                      heldTries.incrementAndGet();
                      r.failure(item, new TransientException("gateway down"));
                    } else {
                      effect(item.value());
                    }
                  }
                  return r.build();
                })
            .build()) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> effects.size() == 21);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> kafka.committed(group).getOrDefault(p0, -1L) == 1L);
      assertThat(kafka.committed(group).get(p0))
          .as("offset 1 (held) has not completed: nothing past it is committed")
          .isEqualTo(1L);
      assertThat(heldTries.get()).isGreaterThanOrEqualTo(1);

      gatewayUp.set(true);
      kafka.awaitCommittedToEnd(group, topic, 1);
    }
    assertThat(effects).containsKey("held");
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(deadLettered).as("no healthy message dead-lettered").hasValue(0);
  }

  @Test
  void twoShareConsumersWithBatchHandlersRunEachKeyOnceAndEndEachRecordOnItsOwn() throws Exception {
    String topic = unique("batch-share");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    int keys = 100;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        kafka.send(topic, 0, null, "order-" + k, "order-" + k);
      }
    }
    kafka.send(topic, 0, null, "declined", "declined");
    kafka.send(topic, 0, null, "poison", "poison-1");
    kafka.flush();
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    AtomicInteger ended = new AtomicInteger();
    List<SigloKafkaShareConsumer<String>> consumers = new CopyOnWriteArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        SigloKafkaShareConsumer<String> c =
            SigloKafkaShareConsumer.batchBuilder(
                    DECODER,
                    (List<BatchItem<String>> batch) -> {
                      batchSizes.add(batch.size());
                      BatchResult.Builder r = BatchResult.builder();
                      for (BatchItem<String> item : batch) {
                        if (item.value().equals("declined")) {
                          r.failure(item, new PermanentException("card declined"));
                        } else {
                          effect(item.value());
                        }
                      }
                      return r.build();
                    })
                .bootstrapServers(KAFKA.broker().bootstrapServers())
                .groupId(group)
                .topics(topic)
                .store(store)
                .listener(
                    e -> {
                      if (e instanceof SigloEvent.Processed
                          || e instanceof SigloEvent.Duplicate
                          || e instanceof SigloEvent.Declined
                          || e instanceof SigloEvent.DeadLettered) {
                        ended.incrementAndGet();
                      }
                    })
                .build();
        consumers.add(c);
        c.start();
      }
      await().atMost(Duration.ofSeconds(90)).until(() -> ended.get() >= 3 * keys + 2);
    } finally {
      consumers.forEach(SigloKafkaShareConsumer::close);
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).max().orElseThrow())
        .isGreaterThan(1);
    List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(topic + "-dlt", 1);
    assertThat(dead)
        .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.reason"))
        .containsExactly("POISON_PAYLOAD");
    assertThat(consumers).allSatisfy(c -> assertThat(c.failedAcknowledgements()).isZero());
  }
}
