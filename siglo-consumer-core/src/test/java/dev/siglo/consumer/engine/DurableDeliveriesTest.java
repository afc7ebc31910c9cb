package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.support.ManualTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The delivery count kept on the record, at the default retry settings on injected time: {@code
 * maxDeliveries} holds when the broker's own count restarts (Kafka after a crash or a rebalance),
 * and a record whose holder died {@code maxTakeovers} times is a crash loop.
 */
class DurableDeliveriesTest {
  private static final String KEY = IdempotencyKeys.defaults().key("order-1");

  private final TestClock clock = new TestClock();
  private final IdempotencyStore store = InMemoryIdempotencyStore.custom().clock(clock).build();
  private final ManualTime time = new ManualTime();
  private final AtomicInteger runs = new AtomicInteger();

  /** A consumer process, new after every restart, on the shared store. */
  private MessageProcessor process(boolean fail) {
    return MessageProcessor.of(
        MessageProcessorConfig.<String>builder(
                PayloadDecoder.utf8(),
                (v, ctx) -> {
                  runs.incrementAndGet();
                  if (fail) {
                    throw new TransientException("gateway 503");
                  }
                  return "ok";
                })
            .store(store)
            .time(time)
            .build());
  }

  /** A holder that claimed the key, then its process died: its lease runs out. */
  private ClaimResult.Claimed holderDies() {
    ClaimResult.Claimed c =
        (ClaimResult.Claimed)
            store.claim(new ClaimRequest(KEY, null, IdempotencyConfig.DEFAULT_LEASE));
    clock.advance(IdempotencyConfig.DEFAULT_LEASE);
    return c;
  }

  @Test
  void maxDeliveriesHoldsWhenTheBrokersCountRestartsAtOneAfterEveryRestart() {
    Disposition last = null;
    for (int restart = 1; restart <= RetryConfig.DEFAULT_MAX_DELIVERIES; restart++) {
      try (MessageProcessor p = process(true)) {
        last = p.process(Messages.keyed("order-1", "{}", 1)); // Kafka's count: always 1
      }
      if (restart < RetryConfig.DEFAULT_MAX_DELIVERIES) {
        assertThat(last).isInstanceOf(Disposition.NackRetry.class);
      }
    }

    assertThat(last).isInstanceOf(Disposition.DeadLetter.class);
    assertThat(((Disposition.DeadLetter) last).reason())
        .isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(runs)
        .hasValue(RetryConfig.DEFAULT_MAX_DELIVERIES * RetryConfig.DEFAULT_MAX_ATTEMPTS);
    ClaimResult replay = store.claim(new ClaimRequest(KEY, null, IdempotencyConfig.DEFAULT_LEASE));
    assertThat(((ClaimResult.Claimed) replay).deliveries())
        .as("dead-lettered: the record was forgotten, a replay from the DLT counts afresh")
        .isEqualTo(1);
  }

  @Test
  void aRecordWhoseHolderDiedThreeTimesIsDeadLetteredAsACrashLoopWithoutRunning() {
    holderDies();
    holderDies();
    holderDies();

    Disposition d;
    try (MessageProcessor p = process(false)) {
      d = p.process(Messages.keyed("order-1", "{}"));
    }

    assertThat(d).isInstanceOf(Disposition.DeadLetter.class);
    Disposition.DeadLetter dead = (Disposition.DeadLetter) d;
    assertThat(dead.reason()).isEqualTo(DeadLetterReason.CRASH_LOOP);
    assertThat(dead.cause()).isInstanceOf(CrashLoopException.class).hasMessageContaining("3 times");
    assertThat(runs).as("the crasher is not run a fourth time").hasValue(0);
    Disposition redelivered;
    try (MessageProcessor p = process(false)) {
      redelivered = p.process(Messages.keyed("order-1", "{}"));
    }
    assertThat(redelivered)
        .as(
            "terminal: a redelivery (its dead letter may be lost with the process) is dead-lettered"
                + " again without running")
        .isInstanceOf(Disposition.DeadLetter.class);
    assertThat(((Disposition.DeadLetter) redelivered).reason())
        .isEqualTo(DeadLetterReason.CRASH_LOOP);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aRecordWhoseHolderDiedTwiceRunsAgain() {
    holderDies();
    holderDies();

    Disposition d;
    try (MessageProcessor p = process(false)) {
      d = p.process(Messages.keyed("order-1", "{}"));
    }

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aMessageWhoseHolderDiedRunsAloneSoThatACrashIsBlamedOnItOnly() throws Exception {
    holderDies();
    java.util.concurrent.CountDownLatch neighbourRunning =
        new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch neighbourMayFinish =
        new java.util.concurrent.CountDownLatch(1);
    java.util.List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.<String>builder(
                    PayloadDecoder.utf8(),
                    (v, ctx) -> {
                      order.add("start " + v);
                      if (v.equals("neighbour")) {
                        neighbourRunning.countDown();
                        assertThat(
                                neighbourMayFinish.await(10, java.util.concurrent.TimeUnit.SECONDS))
                            .isTrue();
                      }
                      order.add("end " + v);
                      return "ok";
                    })
                .store(store)
                .time(time)
                .build())) {
      var neighbour =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> p.process(Messages.keyed("order-2", "neighbour")));
      assertThat(neighbourRunning.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      var suspect =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> p.process(Messages.keyed("order-1", "suspect")));
      org.awaitility.Awaitility.await()
          .during(java.time.Duration.ofMillis(200))
          .atMost(java.time.Duration.ofSeconds(5))
          .until(() -> !order.contains("start suspect"));
      neighbourMayFinish.countDown();

      assertThat(suspect.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .isInstanceOf(Disposition.Ack.class);
      assertThat(neighbour.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .isInstanceOf(Disposition.Ack.class);
    }
    assertThat(order)
        .as("the suspect starts only once nothing else runs")
        .containsExactly("start neighbour", "end neighbour", "start suspect", "end suspect");
    ClaimResult after = store.claim(new ClaimRequest(KEY, null, IdempotencyConfig.DEFAULT_LEASE));
    assertThat(after).isInstanceOf(ClaimResult.Completed.class);
  }
}
