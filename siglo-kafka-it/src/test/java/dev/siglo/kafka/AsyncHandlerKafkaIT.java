package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link AsyncMessageHandler}s (and virtual worker threads) on a real broker: one effect per key
 * under concurrent duplicates, a key's records in offset order whatever order their stages complete
 * in, and no commit past a record whose stage is incomplete.
 */
class AsyncHandlerKafkaIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  private static KafkaTestSupport kafka;
  private static final ScheduledExecutorService completer = Executors.newScheduledThreadPool(4);

  @BeforeAll
  static void connect() {
    kafka = new KafkaTestSupport(KAFKA.broker());
  }

  @AfterAll
  static void disconnect() {
    kafka.close();
    completer.shutdownNow();
  }

  private static String unique(String name) {
    return name + "-" + System.nanoTime();
  }

  private static SigloKafkaConsumer.Builder<String> consumer(
      String group, String topic, AsyncMessageHandler<String> handler) {
    return SigloKafkaConsumer.asyncBuilder(PayloadDecoder.utf8(), handler)
        .bootstrapServers(KAFKA.broker().bootstrapServers())
        .groupId(group)
        .topics(topic)
        .createDeadLetterTopics(true);
  }

  /** A stage completing after a random few milliseconds, on another thread. */
  private static CompletableFuture<Object> later(Runnable effect) {
    CompletableFuture<Object> stage = new CompletableFuture<>();
    completer.schedule(
        () -> {
          effect.run();
          stage.complete("done");
        },
        ThreadLocalRandom.current().nextInt(1, 6),
        TimeUnit.MILLISECONDS);
    return stage;
  }

  private void eachKeyOnceUnderConcurrentDuplicates(WorkerThreads threads, int concurrency)
      throws Exception {
    String topic = unique("async-dups");
    String group = unique("g");
    KAFKA.broker().createTopics(4, topic);
    int keys = 500;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        // each copy under another record key: copies land on other partitions and run at once
        kafka.send(topic, null, "copy-" + copy + "-" + k, "order-" + k, "{}");
      }
    }
    kafka.flush();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  String key = ctx.message().header("idempotency-key").orElseThrow();
                  return later(
                      () ->
                          effects.computeIfAbsent(key, x -> new AtomicInteger()).incrementAndGet());
                })
            .workerThreads(threads)
            .concurrency(concurrency)
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 4);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
  }

  @Test
  void eachKeyRunsOnceUnderConcurrentDuplicatesOnPlatformThreads() throws Exception {
    eachKeyOnceUnderConcurrentDuplicates(WorkerThreads.platform(), 16);
  }

  @Test
  @Tag("virtual-threads")
  void eachKeyRunsOnceUnderConcurrentDuplicatesOnVirtualThreads() throws Exception {
    assumeTrue(
        WorkerThreads.virtualThreadsAvailable(),
        "virtual threads need JDK 21+; this JVM is " + Runtime.version());
    eachKeyOnceUnderConcurrentDuplicates(WorkerThreads.virtualThreads(), 1_000);
  }

  @Test
  void
      aKeysRecordsKeepOffsetOrderWhenTheirStagesCompleteOutOfOrderAndNothingIsCommittedPastTheHeldOne()
          throws Exception {
    String topic = unique("async-order");
    String group = unique("g");
    KAFKA.broker().createTopics(2, topic);
    for (int seq = 0; seq < 5; seq++) {
      kafka.send(topic, 0, "slow", "slow-" + seq, String.valueOf(seq));
    }
    for (int seq = 0; seq < 20; seq++) {
      kafka.send(topic, 0, "fast", "fast-" + seq, String.valueOf(seq));
    }
    kafka.flush();
    CompletableFuture<Object> firstSlow = new CompletableFuture<>();
    Map<String, List<Integer>> started = new ConcurrentHashMap<>();
    Map<String, List<Integer>> finished = new ConcurrentHashMap<>();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  String key = ctx.message().recordKey().orElseThrow();
                  int seq = Integer.parseInt(value);
                  started.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(seq);
                  Runnable done =
                      () ->
                          finished.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(seq);
                  if (key.equals("slow") && seq == 0) {
                    return firstSlow.thenRun(done); // completes when the test says so
                  }
                  // later records of a key complete sooner than earlier ones would
                  CompletableFuture<Object> stage = new CompletableFuture<>();
                  completer.schedule(
                      () -> {
                        done.run();
                        stage.complete(null);
                      },
                      10 - seq % 10,
                      TimeUnit.MILLISECONDS);
                  return stage;
                })
            .ordering(Ordering.KEY)
            .concurrency(8)
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> finished.getOrDefault("fast", List.of()).size() == 20);
      // a marker on the other partition, completed after every "fast" record: once its commit is
      // seen, a commit that covered partition 0's completed records has been sent too
      kafka.send(topic, 1, "marker", "marker-0", "0");
      kafka.flush();
      TopicPartition p0 = new TopicPartition(topic, 0);
      TopicPartition p1 = new TopicPartition(topic, 1);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> kafka.committed(group).getOrDefault(p1, 0L) == 1L);

      assertThat(started.get("slow"))
          .as("the next slow record waits for the held stage")
          .containsExactly(0);
      assertThat(kafka.committed(group).getOrDefault(p0, 0L))
          .as("the commit point stays at the held record (offset 0)")
          .isZero();

      firstSlow.complete("late");
      kafka.awaitCommittedToEnd(group, topic, 2);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(finished.get("slow")).containsExactly(0, 1, 2, 3, 4);
    assertThat(started.get("slow")).containsExactly(0, 1, 2, 3, 4);
    assertThat(finished.get("fast"))
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList());
  }

  @Test
  void twoShareConsumersWithAsyncHandlersRunEachKeyOnce() throws Exception {
    String topic = unique("async-share");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    int keys = 100;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        kafka.send(topic, 0, null, "order-" + k, "{}");
      }
    }
    kafka.flush();
    dev.siglo.consumer.store.IdempotencyStore store =
        dev.siglo.consumer.store.InMemoryIdempotencyStore.of();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    AtomicInteger settled = new AtomicInteger();
    List<SigloKafkaShareConsumer<String>> consumers = new CopyOnWriteArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        SigloKafkaShareConsumer<String> c =
            SigloKafkaShareConsumer.asyncBuilder(
                    PayloadDecoder.utf8(),
                    (String value, dev.siglo.consumer.HandlerContext ctx) -> {
                      String key = ctx.message().header("idempotency-key").orElseThrow();
                      return later(
                          () ->
                              effects
                                  .computeIfAbsent(key, x -> new AtomicInteger())
                                  .incrementAndGet());
                    })
                .bootstrapServers(KAFKA.broker().bootstrapServers())
                .groupId(group)
                .topics(topic)
                .store(store)
                .listener(
                    e -> {
                      if (e instanceof dev.siglo.consumer.event.SigloEvent.Processed
                          || e instanceof dev.siglo.consumer.event.SigloEvent.Duplicate) {
                        settled.incrementAndGet();
                      }
                    })
                .build();
        consumers.add(c);
        c.start();
      }
      await().atMost(Duration.ofSeconds(90)).until(() -> settled.get() >= 3 * keys);
    } finally {
      consumers.forEach(SigloKafkaShareConsumer::close);
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(consumers).allSatisfy(c -> assertThat(c.failedAcknowledgements()).isZero());
  }
}
