package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.support.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Outage-aware flow control at the default retry settings, on injected time: a store outage or a
 * duplicate waiting on a live holder spends no delivery and never dead-letters, a store outage
 * closes the intake gate, which probes with backoff and opens by itself, and a user's pause
 * condition closes it too.
 */
class IntakeGateTest {
  private final RecordingStore store = new RecordingStore();
  private final ManualTime time = new ManualTime();
  private final List<SigloEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final AtomicBoolean dependencyDown = new AtomicBoolean();
  private DefaultMessageProcessor<String> processor;

  @AfterEach
  void close() {
    if (processor != null) {
      processor.close();
    }
  }

  private DefaultMessageProcessor<String> processor() {
    processor =
        new DefaultMessageProcessor<>(
            MessageProcessorConfig.<String>builder(
                    PayloadDecoder.utf8(),
                    (payload, ctx) -> {
                      runs.incrementAndGet();
                      return "ok";
                    })
                .store(store)
                .time(time)
                .listener(events::add)
                .pauseWhile("payment gateway down", dependencyDown::get)
                .build());
    return processor;
  }

  /** Lets {@code d} pass in steps of the gate's tick, checking the gate at each. */
  private void pass(StoreGate gate, Duration d) {
    for (Duration t = Duration.ZERO; t.compareTo(d) < 0; t = t.plus(StoreGate.TICK)) {
      time.advance(StoreGate.TICK);
      gate.check();
    }
  }

  @Test
  void aStoreOutageAtTheLastDeliveryIsNackedUncountedAndClosesTheGateAtOnce() {
    DefaultMessageProcessor<String> p = processor();
    store.failNextClaims.set(Integer.MAX_VALUE);

    Disposition d = p.process(Messages.keyed("order-1", "{}", RetryConfig.DEFAULT_MAX_DELIVERIES));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    Disposition.NackRetry nack = (Disposition.NackRetry) d;
    assertThat(nack.counted()).as("the store's outage is not the message's fault").isFalse();
    assertThat(nack.cause()).isInstanceOf(IdempotencyStoreUnavailableException.class);
    assertThat(p.intake().pausedReason()).contains("idempotency store unavailable");
    assertThat(time.slept()).as("no in-process attempt is spent on a closed gate").isZero();
    assertThat(runs).hasValue(0);
    assertThat(events).anyMatch(e -> e instanceof SigloEvent.Paused);
    assertThat(events).noneMatch(e -> e instanceof SigloEvent.DeadLettered);
  }

  @Test
  void theGateProbesWithBackoffDuringAMinuteLongOutageAndOpensWithinTwoSecondsOfTheReturn() {
    DefaultMessageProcessor<String> p = processor();
    StoreGate gate = p.gate();
    store.failNextClaims.set(Integer.MAX_VALUE);
    AtomicBoolean storeDown = new AtomicBoolean(true);
    AtomicInteger probes = new AtomicInteger();
    store.onGetResult =
        () -> {
          probes.incrementAndGet();
          if (storeDown.get()) {
            throw new IdempotencyStoreUnavailableException("still down");
          }
        };
    p.process(Messages.keyed("order-1", "{}"));

    pass(gate, Duration.ofSeconds(60));

    assertThat(gate.isOpen()).isFalse();
    assertThat(probes.get())
        .as("probes at 0.25, 0.75, 1.75, 3.75 s, then every 2 s")
        .isEqualTo(4 + 28);
    storeDown.set(false);
    store.failNextClaims.set(0);
    pass(gate, StoreGate.MAX_PROBE);
    assertThat(gate.isOpen()).isTrue();
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.Resumed)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((SigloEvent.Resumed) e).pausedFor())
                    .isGreaterThan(Duration.ofSeconds(60)));
    assertThat(p.process(Messages.keyed("order-1", "{}"))).isInstanceOf(Disposition.Ack.class);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aCompletionCaughtByAnOutageClosesTheGateAndWaitsForItsProbeRatherThanCallingTheStore()
      throws Exception {
    DefaultMessageProcessor<String> p = processor();
    StoreGate gate = p.gate();
    store.failNextCompletes.set(Integer.MAX_VALUE);
    AtomicBoolean storeDown = new AtomicBoolean(true);
    store.onGetResult =
        () -> {
          if (storeDown.get()) {
            throw new IdempotencyStoreUnavailableException("still down");
          }
        };
    CompletableFuture<Disposition> done =
        CompletableFuture.supplyAsync(() -> p.process(Messages.keyed("order-1", "{}")));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !gate.isOpen());

    pass(gate, Duration.ofSeconds(60)); // a minute of outage, every probe failing

    assertThat(store.completeCalls)
        .as("the handler ran; its completion made one call, then waited on the probes")
        .hasValue(1);
    assertThat(done).isNotDone();
    storeDown.set(false);
    store.failNextCompletes.set(0);
    pass(gate, StoreGate.MAX_PROBE);
    assertThat(done.get(10, TimeUnit.SECONDS)).isInstanceOf(Disposition.Ack.class);
    assertThat(store.completeCalls).hasValue(2);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aDuplicateThatDoesNotSettleAtTheLastDeliveryIsNackedUncountedNotDeadLettered() {
    DefaultMessageProcessor<String> p = processor();
    store.claim(
        new ClaimRequest(
            IdempotencyKeys.defaults().key("order-held"), null, IdempotencyConfig.DEFAULT_LEASE));

    Disposition d =
        p.process(Messages.keyed("order-held", "{}", RetryConfig.DEFAULT_MAX_DELIVERIES));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) d).counted()).isFalse();
    assertThat(((Disposition.NackRetry) d).cause())
        .isInstanceOf(IdempotencyConflictException.class);
    assertThat(p.intake().isOpen()).as("a live holder is no outage").isTrue();
    assertThat(runs).hasValue(0);
  }

  @Test
  void aPauseConditionClosesTheGateWhileItHoldsAndAFailingOneCountsAsHolding() {
    DefaultMessageProcessor<String> p = processor();
    StoreGate gate = p.gate();
    pass(gate, StoreGate.CHECK_EVERY);
    assertThat(gate.isOpen()).isTrue();

    dependencyDown.set(true);
    pass(gate, StoreGate.CHECK_EVERY);
    assertThat(gate.pausedReason()).contains("payment gateway down");

    dependencyDown.set(false);
    pass(gate, StoreGate.CHECK_EVERY);
    assertThat(gate.isOpen()).isTrue();
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.Paused || e instanceof SigloEvent.Resumed)
        .hasSize(2);
  }
}
