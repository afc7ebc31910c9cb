package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@link SigloKafkaShareConsumer} on a real Kafka 4.4 broker with share groups at the broker's
 * defaults (30 s acquisition lock, 5 deliveries), every topic with one partition. The tests run at
 * once, each on a topic and group of its own: several wait out the broker's 30 s lock or a store
 * outage longer than the redelivery backoff, which in a row took three minutes.
 */
@Execution(ExecutionMode.CONCURRENT)
class SigloKafkaShareConsumerIT {
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

  private static SigloKafkaShareConsumer.Builder<String> consumer(
      String group, String topic, MessageHandler<String> handler) {
    return SigloKafkaShareConsumer.builder(PayloadDecoder.utf8(), handler)
        .bootstrapServers(KAFKA.broker().bootstrapServers())
        .groupId(group)
        .topics(topic);
  }

  /** Counts the records the engine finished (processed, duplicate, declined, dead-lettered). */
  private static final class Settled implements dev.siglo.consumer.event.SigloEventListener {
    final AtomicInteger all = new AtomicInteger();
    final AtomicInteger duplicates = new AtomicInteger();
    final AtomicInteger replayedDeclines = new AtomicInteger();

    @Override
    public void onEvent(SigloEvent e) {
      if (e instanceof SigloEvent.Duplicate) {
        duplicates.incrementAndGet();
      }
      if (e instanceof SigloEvent.Declined d && d.replayed()) {
        replayedDeclines.incrementAndGet();
      }
      if (e instanceof SigloEvent.Processed
          || e instanceof SigloEvent.Duplicate
          || e instanceof SigloEvent.Declined
          || e instanceof SigloEvent.DeadLettered) {
        all.incrementAndGet();
      }
    }
  }

  @Test
  void threeShareConsumersRunOnePartitionsRecordsConcurrentlyAndEachKeyOnce() throws Exception {
    String topic = unique("shared");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    int keys = 40;
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        kafka.send(topic, 0, null, "order-" + k, "{\"order\":" + k + "}");
      }
    }
    kafka.flush();
    IdempotencyStore store = InMemoryIdempotencyStore.of();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> byConsumer = new ConcurrentHashMap<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    // the first handler waits (up to 10 s) for a second to start: a runtime that ran the
    // partition's records one at a time never gets there, whatever the machine's load
    CountDownLatch overlap = new CountDownLatch(2);
    Settled settled = new Settled();
    List<SigloKafkaShareConsumer<String>> consumers = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        String name = "c" + i;
        SigloKafkaShareConsumer<String> c =
            consumer(
                    group,
                    topic,
                    (value, ctx) -> {
                      int now = running.incrementAndGet();
                      maxRunning.accumulateAndGet(now, Math::max);
                      try {
                        overlap.countDown();
                        overlap.await(10, TimeUnit.SECONDS);
                        Thread.sleep(20); // simulated I/O
                        effects
                            .computeIfAbsent(
                                ctx.message().header("idempotency-key").orElseThrow(),
                                k -> new AtomicInteger())
                            .incrementAndGet();
                        byConsumer
                            .computeIfAbsent(name, k -> new AtomicInteger())
                            .incrementAndGet();
                      } finally {
                        running.decrementAndGet();
                      }
                      return null;
                    })
                .store(store)
                .listener(settled)
                .concurrency(4)
                .maxInFlight(8)
                .build();
        consumers.add(c);
        c.start();
      }
      await().atMost(Duration.ofSeconds(90)).until(() -> settled.all.get() >= 3 * keys);
    } finally {
      consumers.forEach(SigloKafkaShareConsumer::close);
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(settled.duplicates.get()).isEqualTo(2 * keys);
    assertThat(byConsumer.keySet()).as("consumers that ran a handler").hasSizeGreaterThan(1);
    assertThat(maxRunning.get()).as("handlers of one partition at once").isGreaterThan(1);
    assertThat(consumers).allSatisfy(c -> assertThat(c.failedAcknowledgements()).isZero());
  }

  @Test
  void transientFailuresAreRetriedThenReleasedAndADeclineIsCached() throws Exception {
    String topic = unique("retries");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "once", "fails once");
    kafka.send(topic, 0, null, "first-delivery", "fails its whole first delivery");
    kafka.send(topic, 0, null, "declined", "declined");
    kafka.flush();
    Map<String, List<Integer>> deliveries = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    Settled settled = new Settled();
    try (SigloKafkaShareConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  String key = ctx.message().header("idempotency-key").orElseThrow();
                  int delivery = ctx.message().deliveryAttempt();
                  List<Integer> seen =
                      deliveries.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>());
                  seen.add(delivery);
                  switch (key) {
                    case "once" -> {
                      if (seen.size() == 1) {
                        throw new TransientException("flaky once");
                      }
                    }
                    case "first-delivery" -> {
                      if (delivery == 1) {
                        throw new TransientException("down during the first delivery");
                      }
                    }
                    case "declined" -> throw new PermanentException("card declined");
                    default -> {}
                  }
                  effects.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                  return null;
                })
            .listener(settled)
            .build()) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> settled.all.get() >= 3);
      kafka.send(topic, 0, null, "declined", "declined, sent again");
      kafka.flush();
      await().atMost(Duration.ofSeconds(60)).until(() -> settled.replayedDeclines.get() == 1);
      assertThat(c.failedAcknowledgements()).isZero();
    }
    assertThat(effects.get("once")).hasValue(1);
    assertThat(deliveries.get("once")).containsExactly(1, 1);
    assertThat(effects.get("first-delivery")).hasValue(1);
    // three in-process attempts of broker delivery 1, released, then broker delivery 2
    assertThat(deliveries.get("first-delivery")).containsExactly(1, 1, 1, 2);
    assertThat(deliveries.get("declined")).as("the decline was cached").containsExactly(1);
  }

  @Test
  void poisonHostileKeysAndExhaustedRetriesGoToTheDeadLetterTopicWithReasons() throws Exception {
    String topic = unique("poison");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "before", "ok");
    kafka.sendRaw(topic, 0, null, "undecodable", new byte[] {(byte) 0xC3, (byte) 0x28});
    kafka.send(topic, 0, null, null, "no key anywhere");
    kafka.send(topic, 0, null, "k".repeat(5_000), "hostile key");
    kafka.send(topic, 0, null, "always-down", "never succeeds");
    kafka.send(topic, 0, null, "after", "ok");
    kafka.flush();
    List<String> handled = new CopyOnWriteArrayList<>();
    List<Integer> exhaustedDeliveries = new CopyOnWriteArrayList<>();
    try (SigloKafkaShareConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  String key = ctx.message().header("idempotency-key").orElseThrow();
                  if (key.equals("always-down")) {
                    exhaustedDeliveries.add(ctx.message().deliveryAttempt());
                    throw new TransientException("the gateway is down");
                  }
                  handled.add(key);
                  return null;
                })
            .build()) {
      c.start();
      List<ConsumerRecord<byte[], byte[]>> dlt = kafka.readAll(topic + "-dlt", 4);
      assertThat(dlt)
          .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.reason"))
          .containsExactlyInAnyOrder(
              "POISON_PAYLOAD", "MISSING_KEY", "INVALID_KEY", "RETRIES_EXHAUSTED");
      assertThat(dlt)
          .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.group"))
          .containsOnly(group);
      await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 2);
      assertThat(c.failedAcknowledgements()).isZero();
    }
    assertThat(handled).containsExactlyInAnyOrder("before", "after");
    // maxDeliveries 5 counted by the broker: three in-process attempts on each delivery
    assertThat(Set.copyOf(exhaustedDeliveries)).containsExactlyInAnyOrder(1, 2, 3, 4, 5);
    assertThat(exhaustedDeliveries).hasSize(15);
  }

  @Test
  void aHandlerLongerThanTheAcquisitionLockIsRenewedAndRunsOnce() throws Exception {
    String topic = unique("slow");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "slow", "takes 32 s, past the 30 s lock");
    kafka.flush();
    IdempotencyStore store = InMemoryIdempotencyStore.of();
    AtomicInteger runs = new AtomicInteger();
    Settled settled = new Settled();
    CountDownLatch started = new CountDownLatch(1);
    MessageHandler<String> handler =
        (value, ctx) -> {
          runs.incrementAndGet();
          started.countDown();
          // the slow work itself: the least the broker's clock allows, its 30 s acquisition
          // lock and two seconds more, so the record outlives the lock it was acquired with
          Thread.sleep(32_000);
          return null;
        };
    try (SigloKafkaShareConsumer<String> a =
            consumer(group, topic, handler).store(store).listener(settled).build();
        SigloKafkaShareConsumer<String> b =
            consumer(group, topic, handler).store(store).listener(settled).build()) {
      a.start();
      assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
      b.start();
      kafka.send(topic, 0, null, "marker", "after the slow one");
      kafka.flush();
      await().atMost(Duration.ofSeconds(90)).until(() -> settled.all.get() >= 2);
      assertThat(a.failedAcknowledgements() + b.failedAcknowledgements()).isZero();
    }
    assertThat(runs).hasValue(2); // the slow record and the marker
    assertThat(settled.duplicates).as("the slow record was never delivered again").hasValue(0);
  }

  @Test
  void closeReleasesUnstartedRecordsAtOnceForAnotherMember() throws Exception {
    String topic = unique("release");
    String group = unique("sg");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "hold", "blocks until released");
    for (int i = 0; i < 9; i++) {
      kafka.send(topic, 0, null, "r" + i, "unstarted");
    }
    kafka.flush();
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Map<String, String> ranBy = new ConcurrentHashMap<>();
    IdempotencyStore store = InMemoryIdempotencyStore.of();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SigloKafkaShareConsumer<String> a =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  ranBy.put(ctx.message().header("idempotency-key").orElseThrow(), "a");
                  holding.countDown();
                  assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                  return null;
                })
            .store(store)
            .metrics(registry)
            .concurrency(1)
            .maxInFlight(10)
            .build();
    a.start();
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
    // a acquired the records just before its handler started: their 30 s lock ends no earlier
    // than about 30 s from now, so records seen again before 27 s came back by the release
    long lockStillHeldUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(27);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("siglo.in_flight").gauge().value() == 10);
    try (SigloKafkaShareConsumer<String> b =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  ranBy.put(ctx.message().header("idempotency-key").orElseThrow(), "b");
                  return null;
                })
            .store(store)
            .build()) {
      b.start();
      CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> a.close());
      // inside the 30 s lock: they came back by the release, not by the lock's end (however long
      // b took to join on a loaded machine)
      await()
          .atMost(Duration.ofNanos(Math.max(0, lockStillHeldUntil - System.nanoTime())))
          .until(() -> ranBy.size() == 10);
      assertThat(closing).isNotDone(); // a still drains its running handler
      release.countDown();
      closing.get(30, TimeUnit.SECONDS);
    }
    assertThat(ranBy).containsEntry("hold", "a");
    assertThat(ranBy).hasSize(10);
    assertThat(ranBy.entrySet())
        .filteredOn(e -> !e.getKey().equals("hold"))
        .allSatisfy(e -> assertThat(e.getValue()).isEqualTo("b"));
  }

  @Test
  void startFailsWithOneLineWhenTheGroupWouldArchiveBeforeSigloDeadLetters() {
    String topic = unique("limits");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (SigloKafkaShareConsumer<String> c =
        consumer(unique("sg"), topic, (value, ctx) -> null)
            .retry(dev.siglo.consumer.RetryConfig.custom().maxDeliveries(6).build())
            .build()) {
      assertThat(c.start())
          .failsWithin(Duration.ofSeconds(30))
          .withThrowableThat()
          .havingRootCause()
          .isInstanceOf(dev.siglo.consumer.error.SigloConfigurationException.class)
          .withMessageStartingWith("maxDeliveries (6) exceeds the share.delivery.count.limit (5)");
    }
  }

  @Test
  void startFailsWhenTheDeadLetterTopicIsMissing() {
    String topic = unique("nodlt");
    KAFKA.broker().createTopics(1, topic);
    try (SigloKafkaShareConsumer<String> c =
        consumer(unique("sg"), topic, (value, ctx) -> null).build()) {
      assertThat(c.start())
          .failsWithin(Duration.ofSeconds(30))
          .withThrowableThat()
          .havingRootCause()
          .withMessageContaining("dead-letter topic(s) [" + topic + "-dlt] do not exist");
    }
  }

  /** A store that is unreachable while {@code down} is set. */
  private static final class Unreachable
      extends dev.siglo.consumer.store.InterceptedIdempotencyStore {
    final java.util.concurrent.atomic.AtomicBoolean down =
        new java.util.concurrent.atomic.AtomicBoolean(true);

    Unreachable(IdempotencyStore store) {
      super(store);
    }

    @Override
    protected <R> R intercept(String operation, java.util.function.Supplier<R> call) {
      if (down.get()) {
        throw new dev.siglo.consumer.error.IdempotencyStoreUnavailableException(
            "the store is down (" + operation + ")");
      }
      return call.get();
    }
  }

  @Test
  void aStoreOutageSpendsNoneOfTheRecordsBrokerDeliveries() throws Exception {
    String topic = unique("outage");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "during-outage", "waits for the store");
    kafka.flush();
    Unreachable store = new Unreachable(InMemoryIdempotencyStore.of());
    List<Integer> deliveries = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (SigloKafkaShareConsumer<String> c =
        consumer(
                unique("sg"),
                topic,
                (value, ctx) -> {
                  deliveries.add(ctx.message().deliveryAttempt());
                  return null;
                })
            .store(store)
            .metrics(registry)
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                var paused = registry.find("siglo.paused").gauge();
                return paused != null && paused.value() == 1;
              });
      // the outage itself: longer than the whole redelivery backoff (1 + 2 + 4 + 8 s)
      Thread.sleep(20_000);
      store.down.set(false);
      await().atMost(Duration.ofSeconds(60)).until(() -> deliveries.size() == 1);
      assertThat(c.failedAcknowledgements()).isZero();
    }
    assertThat(deliveries).as("broker deliveries the handler saw").containsExactly(1);
  }
}
