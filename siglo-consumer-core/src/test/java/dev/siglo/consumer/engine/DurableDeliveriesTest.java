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
    ClaimResult replay = store.claim(new ClaimRequest(KEY, null, IdempotencyConfig.DEFAULT_LEASE));
    assertThat(((ClaimResult.Claimed) replay).takeovers()).isZero();
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
}
