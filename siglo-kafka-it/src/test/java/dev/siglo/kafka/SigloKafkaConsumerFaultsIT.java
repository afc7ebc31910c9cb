package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.metrics.SigloMetrics;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SlowWork;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Production faults on a real broker and a real Redis, at the retry and delivery defaults a user
 * gets: handlers that outlive their lease three times over while copies of their keys arrive on
 * other partitions, and a Redis outage longer than the whole redelivery budget.
 */
class SigloKafkaConsumerFaultsIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  private static KafkaTestSupport kafka;
  private static RedisServer redis;

  @BeforeAll
  static void connect() {
    kafka = new KafkaTestSupport(KAFKA.broker());
    redis = RedisServer.custom().start();
  }

  @AfterAll
  static void disconnect() {
    kafka.close();
    redis.close();
  }

  private static String unique(String name) {
    return name + "-" + System.nanoTime();
  }

  private static RedisIdempotencyStore store() {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .hostAndPort(redis.host(), redis.port())
            .keyPrefix(unique("t") + ":")
            .build());
  }

  private static SigloKafkaConsumer.Builder<String> consumer(
      String group, String topic, RedisIdempotencyStore store, MessageHandler<String> handler) {
    return SigloKafkaConsumer.builder(PayloadDecoder.utf8(), handler)
        .bootstrapServers(KAFKA.broker().bootstrapServers())
        .groupId(group)
        .topics(topic)
        .store(store)
        .commitInterval(Duration.ofMillis(100));
  }

  private static long deadLetters(String topic) throws Exception {
    return kafka.endOffsets(topic + "-dlt", 1).values().stream().mapToLong(Long::longValue).sum();
  }

  @Test
  void aHandlerRunningThreeAndAHalfLeasesRunsOnceWhileCopiesOfItsKeyArriveOnOtherPartitions()
      throws Exception {
    String topic = unique("slow");
    String group = unique("g");
    KAFKA.broker().createTopics(3, topic);
    KAFKA.broker().createTopics(1, topic + "-dlt");
    SlowWork work = new SlowWork();
    List<SigloEvent> events = new CopyOnWriteArrayList<>();
    try (RedisIdempotencyStore store = store();
        SigloKafkaConsumer<String> c =
            consumer(group, topic, store, (v, ctx) -> work.run(v))
                .idempotency(SlowWork.shortLease())
                .listener(events::add)
                .build()) {
      c.start();
      kafka.send(topic, 0, null, "order-1", "a");
      kafka.flush();
      assertThat(work.awaitStarted()).isTrue();
      kafka.send(topic, 1, null, "order-1", "a"); // while it runs
      kafka.flush();
      SlowWork.letTwoLeasesPass();
      kafka.send(topic, 2, null, "order-1", "a"); // an unrenewed claim would be taken over now
      kafka.flush();

      kafka.awaitCommittedToEnd(group, topic, 3);
    }
    assertThat(work.effects()).as("never taken over while its process lives").isEqualTo(1);
    assertThat(events).noneMatch(e -> e instanceof SigloEvent.LeaseLost);
    assertThat(events).filteredOn(e -> e instanceof SigloEvent.Duplicate).hasSize(2);
    assertThat(deadLetters(topic)).isZero();
  }

  @Test
  void aStepRunningThreeAndAHalfLeasesSharedByTwoMessagesRunsOnce() throws Exception {
    String topic = unique("step");
    String group = unique("g");
    KAFKA.broker().createTopics(2, topic);
    KAFKA.broker().createTopics(1, topic + "-dlt");
    SlowWork work = new SlowWork();
    Step<String, String> charge = work.sharedStep();
    AtomicInteger handlerCalls = new AtomicInteger();
    try (RedisIdempotencyStore store = store();
        SigloKafkaConsumer<String> c =
            consumer(
                    group,
                    topic,
                    store,
                    (v, ctx) -> {
                      handlerCalls.incrementAndGet();
                      return ctx.run(charge, v);
                    })
                .build()) {
      c.start();
      kafka.send(topic, 0, null, "order-A", "inv-7");
      kafka.flush();
      assertThat(work.awaitStarted()).isTrue();
      SlowWork.letTwoLeasesPass();
      kafka.send(topic, 1, null, "order-B", "inv-7"); // another message, the same invoice
      kafka.flush();

      kafka.awaitCommittedToEnd(group, topic, 2);
    }
    assertThat(handlerCalls).hasValue(2);
    assertThat(work.effects()).as("the step's claim was renewed while it ran").isEqualTo(1);
    assertThat(deadLetters(topic)).isZero();
  }

  @Test
  void maxDeliveriesHoldsAcrossAConsumerRestartThoughKafkasOwnCountStartsOver() throws Exception {
    String topic = unique("restart");
    String group = unique("g");
    KAFKA.broker().createTopics(1, topic);
    KAFKA.broker().createTopics(1, topic + "-dlt");
    AtomicInteger deliveries = new AtomicInteger();
    MessageHandler<String> failing =
        (v, ctx) -> {
          if (ctx.attempt() == 1) {
            deliveries.incrementAndGet();
          }
          throw new dev.siglo.consumer.error.TransientException("gateway 503");
        };
    try (RedisIdempotencyStore store = store()) {
      try (SigloKafkaConsumer<String> first = consumer(group, topic, store, failing).build()) {
        first.start();
        kafka.send(topic, 0, null, "order-1", "a");
        kafka.flush();
        await().atMost(Duration.ofSeconds(60)).until(() -> deliveries.get() >= 2);
      } // the consumer stops: the record was never completed, so it is not committed
      try (SigloKafkaConsumer<String> second = consumer(group, topic, store, failing).build()) {
        second.start(); // Kafka's delivery count starts at 1 again in this consumer
        kafka.awaitCommittedToEnd(group, topic, 1);
      }
    }
    assertThat(deliveries)
        .as("the default maxDeliveries across both consumers, not per consumer")
        .hasValue(dev.siglo.consumer.RetryConfig.DEFAULT_MAX_DELIVERIES);
    assertThat(kafka.readAll(topic + "-dlt", 1))
        .singleElement()
        .extracting(r -> KafkaTestSupport.header(r, "siglo.dlt.reason"))
        .isEqualTo("RETRIES_EXHAUSTED");
  }

  @Test
  void aRedisOutageLongerThanTheRedeliveryBudgetPausesConsumptionAndDeadLettersNothing()
      throws Exception {
    String topic = unique("outage");
    String group = unique("g");
    KAFKA.broker().createTopics(3, topic);
    KAFKA.broker().createTopics(1, topic + "-dlt");
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    int before = 300;
    int during = 300;
    try (RedisIdempotencyStore store = store();
        SigloKafkaConsumer<String> c =
            consumer(
                    group,
                    topic,
                    store,
                    (v, ctx) -> {
                      effects.computeIfAbsent(v, k -> new AtomicInteger()).incrementAndGet();
                      return v;
                    })
                .metrics(registry)
                .build()) {
      c.start();
      for (int i = 0; i < before; i++) {
        kafka.send(topic, null, null, "order-" + i, "order-" + i);
      }
      kafka.flush();
      kafka.awaitCommittedToEnd(group, topic, 3);

      long callsDuringOutage;
      redis.stop();
      try {
        for (int i = before; i < before + during; i++) {
          kafka.send(topic, null, null, "order-" + i, "order-" + i);
        }
        kafka.flush();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> registry.get(SigloMetrics.PAUSED).gauge().value() == 1.0);
        long callsAtPause = storeCalls(registry);
        // longer than the whole redelivery budget of the defaults (1 + 2 + 4 + 8 s of backoff)
        Thread.sleep(Duration.ofSeconds(20).toMillis()); // the fault: the outage lasts 20 s
        callsDuringOutage = storeCalls(registry) - callsAtPause;
        assertThat(registry.get(SigloMetrics.PAUSED).gauge().value()).isEqualTo(1.0);
      } finally {
        redis.start(); // also when an assertion above failed: the other tests need it
      }
      long back = System.nanoTime();
      // resumed: the intake opens again (how soon the backlog then drains is the machine's load)
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> registry.get(SigloMetrics.PAUSED).gauge().value() == 0.0);
      double resumedAfter = (System.nanoTime() - back) / 1e9;
      kafka.awaitCommittedToEnd(group, topic, 3);
      assertThat(callsDuringOutage)
          .as("a handful of probes, no claims of new work (%s calls)", callsDuringOutage)
          .isLessThan(40);
      assertThat(resumedAfter)
          .as("resumed %s s after Redis came back", resumedAfter)
          .isLessThan(30);
    }
    assertThat(effects).hasSize(before + during);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
    assertThat(deadLetters(topic)).as("no healthy message dead-lettered").isZero();
  }

  private static long storeCalls(SimpleMeterRegistry registry) {
    return registry.find(SigloMetrics.STORE).timers().stream().mapToLong(Timer::count).sum();
  }
}
