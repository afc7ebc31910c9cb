package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.metrics.SigloMetrics;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SlowWork;
import dev.siglo.testkit.SqsServerExtension;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
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
 * Production faults on ElasticMQ and a real Redis, at the retry and delivery defaults a user gets:
 * handlers that outlive their lease (and the queue's visibility timeout) while copies of their key
 * arrive, and a Redis outage longer than the whole redelivery budget.
 */
class SigloSqsConsumerFaultsIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();
  private static SqsTestSupport sqs;
  private static RedisServer redis;

  @BeforeAll
  static void connect() {
    sqs = new SqsTestSupport(SQS.server());
    redis = RedisServer.custom().start();
  }

  @AfterAll
  static void disconnect() {
    sqs.sqs.close();
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

  /** A queue whose visibility (3 s) the long handlers outlive too, with a dead-letter queue. */
  private static String[] queueAndDeadLetters(String name) {
    String dlq = sqs.queue(unique(name + "-dlq"), Map.of());
    String url =
        sqs.queue(
            unique(name),
            Map.of(
                software.amazon.awssdk.services.sqs.model.QueueAttributeName.VISIBILITY_TIMEOUT,
                "3"));
    return new String[] {url, dlq};
  }

  private static SigloSqsConsumer.Builder<String> consumer(
      String[] queues, RedisIdempotencyStore store, MessageHandler<String> handler) {
    return SigloSqsConsumer.builder(PayloadDecoder.utf8(), handler)
        .client(sqs.sqs)
        .queueUrl(queues[0])
        .deadLetterQueue(queues[1], false)
        .store(store)
        .waitTime(Duration.ofSeconds(1))
        .deleteInterval(Duration.ofMillis(50));
  }

  private static void awaitEmpty(String url) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> sqs.remaining(url) == 0);
  }

  @Test
  void aHandlerRunningThreeAndAHalfLeasesRunsOnceWhileCopiesOfItsKeyArrive() throws Exception {
    String[] queues = queueAndDeadLetters("slow");
    SlowWork work = new SlowWork();
    List<SigloEvent> events = new CopyOnWriteArrayList<>();
    try (RedisIdempotencyStore store = store();
        SigloSqsConsumer<String> c =
            consumer(queues, store, (v, ctx) -> work.run(v))
                .idempotency(SlowWork.shortLease())
                .listener(events::add)
                .build()) {
      c.start();
      sqs.send(queues[0], "order-1", "a");
      assertThat(work.awaitStarted()).isTrue();
      sqs.send(queues[0], "order-1", "a"); // while it runs
      SlowWork.letTwoLeasesPass();
      sqs.send(queues[0], "order-1", "a"); // an unrenewed claim would be taken over now

      awaitEmpty(queues[0]);
    }
    assertThat(work.effects()).as("never taken over while its process lives").isEqualTo(1);
    assertThat(events).noneMatch(e -> e instanceof SigloEvent.LeaseLost);
    assertThat(sqs.drain(queues[1])).isEmpty();
  }

  @Test
  void aStepRunningThreeAndAHalfLeasesSharedByTwoMessagesRunsOnce() throws Exception {
    String[] queues = queueAndDeadLetters("step");
    SlowWork work = new SlowWork();
    Step<String, String> charge = work.sharedStep();
    try (RedisIdempotencyStore store = store();
        SigloSqsConsumer<String> c =
            consumer(queues, store, (v, ctx) -> ctx.run(charge, v)).build()) {
      c.start();
      sqs.send(queues[0], "order-A", "inv-7");
      assertThat(work.awaitStarted()).isTrue();
      SlowWork.letTwoLeasesPass();
      sqs.send(queues[0], "order-B", "inv-7"); // another message, the same invoice

      awaitEmpty(queues[0]);
    }
    assertThat(work.effects()).as("the step's claim was renewed while it ran").isEqualTo(1);
    assertThat(sqs.drain(queues[1])).isEmpty();
  }

  @Test
  void aRedisOutageLongerThanTheRedeliveryBudgetStopsReceivingAndDeadLettersNothing()
      throws Exception {
    String[] queues = queueAndDeadLetters("outage");
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    int before = 200;
    int during = 200;
    try (RedisIdempotencyStore store = store();
        SigloSqsConsumer<String> c =
            consumer(
                    queues,
                    store,
                    (v, ctx) -> {
                      effects.computeIfAbsent(v, k -> new AtomicInteger()).incrementAndGet();
                      return v;
                    })
                .metrics(registry)
                .build()) {
      c.start();
      sqs.sendAll(queues[0], messages(0, before));
      awaitEmpty(queues[0]);

      long callsDuringOutage;
      redis.stop();
      try {
        sqs.sendAll(queues[0], messages(before, before + during));
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> registry.get(SigloMetrics.PAUSED).gauge().value() == 1.0);
        long callsAtPause = storeCalls(registry);
        // longer than the whole redelivery budget of the defaults
        Thread.sleep(Duration.ofSeconds(20).toMillis()); // the fault: the outage lasts 20 s
        callsDuringOutage = storeCalls(registry) - callsAtPause;
        assertThat(registry.get(SigloMetrics.PAUSED).gauge().value()).isEqualTo(1.0);
        assertThat(sqs.inFlight(queues[0]))
            .as("paused: nothing received and held (released at once)")
            .isZero();
      } finally {
        redis.start(); // also when an assertion above failed: the other tests need it
      }

      awaitEmpty(queues[0]);
      assertThat(callsDuringOutage)
          .as("a handful of probes, no claims of new work (%s calls)", callsDuringOutage)
          .isLessThan(40);
    }
    assertThat(effects).hasSize(before + during);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
    assertThat(sqs.drain(queues[1])).as("no healthy message dead-lettered").isEmpty();
  }

  private static List<String[]> messages(int from, int to) {
    List<String[]> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(new String[] {"order-" + i, "order-" + i});
    }
    return out;
  }

  private static long storeCalls(SimpleMeterRegistry registry) {
    return registry.find(SigloMetrics.STORE).timers().stream().mapToLong(Timer::count).sum();
  }
}
