package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
            .createDeadLetterTopics(true)
            .concurrency(16)
            .build()) {
      consumer.start();
      kafka.awaitCommittedToEnd(group, topic, 6);
      assertThat(consumer.isRunning()).isTrue();
    }
    assertEachKeyOnce(effects, keys);
    assertThat(calls).hasValue(keys);
  }

  private static SigloKafkaConsumer.Builder<String> consumer(
      String group, String topic, MessageHandler<String> handler) {
    return SigloKafkaConsumer.builder(PayloadDecoder.utf8(), handler)
        .bootstrapServers(KAFKA.broker().bootstrapServers())
        .groupId(group)
        .topics(topic)
        .createDeadLetterTopics(true)
        .commitInterval(Duration.ofMillis(100));
  }

  @Test
  void keyOrderingKeepsEachKeyInOffsetOrderWhileKeysRunConcurrently() throws Exception {
    String topic = unique("ordered");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic);
    for (int k = 0; k < 8; k++) {
      for (int seq = 0; seq < 20; seq++) {
        kafka.send(topic, 0, "customer-" + k, "customer-" + k + "-" + seq, String.valueOf(seq));
      }
    }
    kafka.flush();
    Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
    java.util.Set<String> keysInFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger sameKeyOverlaps = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    // the first handler waits (up to 10 s) for a second to start: a runtime that ran the lanes
    // one at a time never gets there, whatever the machine's load
    java.util.concurrent.CountDownLatch overlap = new java.util.concurrent.CountDownLatch(2);
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  String key = ctx.message().recordKey().orElseThrow();
                  if (!keysInFlight.add(key)) {
                    sameKeyOverlaps.incrementAndGet();
                  }
                  maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                  overlap.countDown();
                  overlap.await(10, java.util.concurrent.TimeUnit.SECONDS);
                  int seq = Integer.parseInt(value);
                  // simulated I/O; earlier records take longer, so running a key's records
                  // concurrently would finish them out of order
                  Thread.sleep(10 - seq % 10);
                  seen.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(seq);
                  running.decrementAndGet();
                  keysInFlight.remove(key);
                  return null;
                })
            .ordering(Ordering.KEY)
            .concurrency(8)
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 1);
    }
    assertThat(maxRunning.get())
        .as("more than one handler in flight on one partition")
        .isGreaterThan(1);
    assertThat(sameKeyOverlaps).as("never two records of one key at once").hasValue(0);
    assertThat(seen).hasSize(8);
    List<Integer> inOrder = java.util.stream.IntStream.range(0, 20).boxed().toList();
    assertThat(seen.values()).allSatisfy(order -> assertThat(order).isEqualTo(inOrder));
  }

  @Test
  void theCommittedOffsetNeverPassesAnIncompleteRecord() throws Exception {
    String topic = unique("blocking");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic);
    for (int i = 0; i < 20; i++) {
      kafka.send(topic, 0, "k" + i, "id-" + i, i == 5 ? "block" : "go");
    }
    kafka.flush();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger done = new AtomicInteger();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  if (value.equals("block")) {
                    release.await(60, TimeUnit.SECONDS);
                  }
                  done.incrementAndGet();
                  return null;
                })
            .concurrency(4)
            .build()) {
      c.start();
      TopicPartition tp = new TopicPartition(topic, 0);
      await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == 19);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> kafka.committed(group).getOrDefault(tp, -1L) == 5L);
      assertThat(done).as("later records completed while offset 5 is blocked").hasValue(19);
      assertThat(kafka.committed(group).get(tp)).isEqualTo(5L);
      release.countDown();
      kafka.awaitCommittedToEnd(group, topic, 1);
      assertThat(done).hasValue(20);
    }
  }

  static final class CardDeclined extends PermanentException {
    private static final long serialVersionUID = 1L;

    CardDeclined(String m) {
      super(m);
    }
  }

  @Test
  void transientPermanentAndExhaustedFailuresEndAsRetriedDeclinedOrDeadLettered() throws Exception {
    String topic = unique("payments");
    String group = unique("g");
    KAFKA.broker().createTopics(2, topic, topic + "-dlt");
    kafka.send(topic, 0, "a", "flaky-once", "flaky");
    kafka.send(topic, 0, "b", "always-down", "down");
    kafka.send(topic, 1, "c", "declined", "decline");
    kafka.send(topic, 1, "d", "fine", "fine");
    kafka.flush();
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    MessageHandler<String> handler =
        (value, ctx) -> {
          int n = calls.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
          switch (value) {
            case "flaky" -> {
              if (n == 1) {
                throw new TransientException("gateway timed out");
              }
            }
            case "down" -> throw new java.io.IOException("connection reset");
            case "decline" -> throw new CardDeclined("card declined: insufficient funds");
            default -> {}
          }
          return value;
        };
    dev.siglo.consumer.store.InMemoryIdempotencyStore store =
        dev.siglo.consumer.store.InMemoryIdempotencyStore.of();
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    try (SigloKafkaConsumer<String> c =
        consumer(group, topic, handler)
            .store(store)
            .metrics(registry)
            .retry(
                RetryConfig.custom()
                    .maxAttempts(2)
                    .backoff(Duration.ofMillis(10), Duration.ofMillis(10))
                    .maxDeliveries(3)
                    .redeliveryBackoff(Duration.ofMillis(100), Duration.ofMillis(200))
                    .build())
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 2);
      kafka.send(topic, 1, "c", "declined", "decline");
      kafka.flush();
      kafka.awaitCommittedToEnd(group, topic, 2);
    }
    assertThat(calls.get("flaky")).hasValue(2);
    assertThat(calls.get("fine")).hasValue(1);
    assertThat(
            registry
                .get("siglo.messages")
                .tag("outcome", "processed")
                .tag("destination", topic)
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(registry.get("siglo.messages").tag("outcome", "declined").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("siglo.messages").tag("outcome", "decline_replayed").counter().count())
        .as("the redelivered duplicate")
        .isEqualTo(1);
    assertThat(registry.get("siglo.messages").tag("outcome", "dead_lettered").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("siglo.messages").tag("outcome", "retried").counter().count())
        .isPositive();
    assertThat(registry.get("siglo.store").tag("operation", "claim").timer().count()).isPositive();
    assertThat(registry.get("siglo.lag").tag("topic", topic).gauges())
        .as("a lag gauge per partition, at zero once everything was consumed")
        .hasSize(2)
        .allSatisfy(g -> assertThat(g.value()).isZero());
    assertThat(registry.get("siglo.in_flight").tag("system", "kafka").gauge().value()).isZero();
    assertThat(calls.get("down")).as("2 in-process attempts x 3 deliveries").hasValue(6);
    assertThat(calls.get("decline"))
        .as("declined once, the redelivered duplicate replays the decline")
        .hasValue(1);

    List<ConsumerRecord<byte[], byte[]>> dlt = kafka.readAll(topic + "-dlt", 1);
    assertThat(dlt).hasSize(1);
    ConsumerRecord<byte[], byte[]> dead = dlt.get(0);
    assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("down");
    assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("b");
    assertThat(KafkaTestSupport.header(dead, "idempotency-key")).isEqualTo("always-down");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.original-topic")).isEqualTo(topic);
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.original-partition")).isEqualTo("0");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.original-offset")).isEqualTo("1");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.group")).isEqualTo(group);
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.reason")).isEqualTo("RETRIES_EXHAUSTED");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.classification")).isEqualTo("TRANSIENT");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.exception-class"))
        .isEqualTo("java.io.IOException");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.exception-message"))
        .isEqualTo("connection reset");
    assertThat(KafkaTestSupport.header(dead, "siglo.dlt.attempts")).isEqualTo("3");
    assertThat(store.getResult(IdempotencyKeys.defaults().key("always-down")))
        .as("no decline cached for a transient dead letter")
        .isEmpty();
    assertThat(store.getResult(IdempotencyKeys.defaults().key("declined")))
        .containsInstanceOf(Outcome.Declined.class);
  }

  @Test
  void poisonRecordsGoToTheDeadLetterTopicWithAReasonAndTheRecordsAroundThemAreProcessed()
      throws Exception {
    String topic = unique("poison");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, "before", "ok");
    kafka.sendRaw(topic, 0, null, "undecodable", new byte[] {(byte) 0xC3, (byte) 0x28});
    kafka.send(topic, 0, null, null, "no key anywhere");
    kafka.send(topic, 0, null, "k".repeat(5_000), "hostile key");
    kafka.send(topic, 0, null, "after", "ok");
    kafka.flush();
    List<String> handled = new CopyOnWriteArrayList<>();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> handled.add(ctx.message().header("idempotency-key").orElse("?")))
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 1);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(handled).containsExactlyInAnyOrder("before", "after");
    List<ConsumerRecord<byte[], byte[]>> dlt = kafka.readAll(topic + "-dlt", 3);
    assertThat(dlt)
        .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.reason"))
        .containsExactlyInAnyOrder("POISON_PAYLOAD", "MISSING_KEY", "INVALID_KEY");
    assertThat(dlt)
        .allSatisfy(
            r ->
                assertThat(KafkaTestSupport.header(r, "siglo.dlt.classification"))
                    .isEqualTo("PERMANENT"));
  }

  @Test
  void withProcessWithoutIdempotencyARecordWithoutKeyIsHandledInsteadOfDeadLettered()
      throws Exception {
    String topic = unique("unkeyed");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    kafka.send(topic, 0, null, null, "no key anywhere");
    kafka.send(topic, 0, null, "keyed", "ok");
    kafka.flush();
    List<String> handled = new CopyOnWriteArrayList<>();
    try (SigloKafkaConsumer<String> c =
        consumer(group, topic, (value, ctx) -> handled.add(value))
            .missingKeyPolicy(MissingKeyPolicy.PROCESS_WITHOUT_IDEMPOTENCY)
            .build()) {
      c.start();
      kafka.awaitCommittedToEnd(group, topic, 1);
    }
    assertThat(handled).containsExactlyInAnyOrder("no key anywhere", "ok");
  }

  @Test
  void aConsumerClosedMidRunIsTakenOverWithoutRunningAnyKeyTwiceOrLosingOne() throws Exception {
    String topic = unique("handover");
    String group = unique("g");
    KAFKA.broker().createTopics(4, topic);
    int keys = 2_000;
    produceKeys(topic, keys);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    dev.siglo.consumer.store.InMemoryIdempotencyStore shared =
        dev.siglo.consumer.store.InMemoryIdempotencyStore.of();
    MessageHandler<String> handler = countingEffects(effects);
    SigloKafkaConsumer<String> first =
        consumer(group, topic, handler).store(shared).concurrency(4).build();
    first.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> effects.size() > keys / 4);
    first.close(Duration.ofSeconds(10));
    assertThat(first.termination()).isCompleted();
    int before = effects.size();
    assertThat(before).isLessThan(keys);
    try (SigloKafkaConsumer<String> second =
        consumer(group, topic, handler).store(shared).concurrency(4).build()) {
      second.start();
      kafka.awaitCommittedToEnd(group, topic, 4);
    }
    assertEachKeyOnce(effects, keys);
  }

  @Test
  void aSecondConsumerJoiningMidRunRebalancesWithoutRunningAnyKeyTwiceOrLosingOne()
      throws Exception {
    String topic = unique("rebalance");
    String group = unique("g");
    KAFKA.broker().createTopics(6, topic);
    int keys = 3_000;
    produceKeys(topic, keys);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    dev.siglo.consumer.store.InMemoryIdempotencyStore shared =
        dev.siglo.consumer.store.InMemoryIdempotencyStore.of();
    MessageHandler<String> handler = countingEffects(effects);
    try (SigloKafkaConsumer<String> first =
            consumer(group, topic, handler).store(shared).concurrency(4).build();
        SigloKafkaConsumer<String> second =
            consumer(group, topic, handler).store(shared).concurrency(4).build()) {
      first.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> effects.size() > keys / 5);
      second.start();
      kafka.awaitCommittedToEnd(group, topic, 6);
      assertThat(first.isRunning()).isTrue();
      assertThat(second.isRunning()).isTrue();
    }
    assertEachKeyOnce(effects, keys);
  }

  @Test
  void aHandlerSlowerThanMaxPollIntervalNeverMakesTheConsumerLeaveItsGroup() throws Exception {
    String topic = unique("slow");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic);
    kafka.send(topic, 0, "slow", "slow-1", "slow");
    for (int i = 0; i < 30; i++) {
      kafka.send(topic, 0, "fast-" + i, "fast-" + i, "fast");
    }
    kafka.flush();
    CountDownLatch slowStarted = new CountDownLatch(1);
    AtomicInteger handled = new AtomicInteger();
    try (SigloKafkaConsumer<String> c =
        consumer(
                group,
                topic,
                (value, ctx) -> {
                  if (value.equals("slow")) {
                    slowStarted.countDown();
                    Thread.sleep(8_000); // simulated slow I/O, well past max.poll.interval.ms
                  }
                  handled.incrementAndGet();
                  return null;
                })
            .property("max.poll.interval.ms", 3_000)
            .concurrency(4)
            .build()) {
      c.start();
      assertThat(slowStarted.await(60, TimeUnit.SECONDS)).isTrue();
      String member =
          await().atMost(Duration.ofSeconds(30)).until(() -> memberId(group), m -> m != null);
      kafka.awaitCommittedToEnd(group, topic, 1);
      assertThat(memberId(group)).as("the same member throughout: no rebalance").isEqualTo(member);
    }
    assertThat(handled).hasValue(31);
  }

  private static String memberId(String group) throws Exception {
    try (var admin = KAFKA.broker().admin()) {
      var members =
          admin
              .describeConsumerGroups(List.of(group))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(group)
              .members();
      return members.size() == 1 ? members.iterator().next().consumerId() : null;
    }
  }

  private static void produceKeys(String topic, int keys) {
    for (int k = 0; k < keys; k++) {
      kafka.send(topic, null, "key-" + k, "order-" + k, "v");
    }
    kafka.flush();
  }

  /** A handler counting its side effect per idempotency key, with a little simulated work. */
  private static MessageHandler<String> countingEffects(Map<String, AtomicInteger> effects) {
    return (value, ctx) -> {
      Thread.sleep(1); // simulated work
      effects
          .computeIfAbsent(
              ctx.message().header("idempotency-key").orElseThrow(), k -> new AtomicInteger())
          .incrementAndGet();
      return null;
    };
  }

  private static void assertEachKeyOnce(Map<String, AtomicInteger> effects, int keys) {
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }
}
