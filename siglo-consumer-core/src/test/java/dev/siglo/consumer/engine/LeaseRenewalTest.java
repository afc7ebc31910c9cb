package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine renews every claim a running handler or step holds, at the default lease (2 min) on
 * injected time: a handler running three leases is never taken over while it lives, and an
 * execution whose claim was taken over anyway (its process froze) settles on the new holder's
 * result instead of taking the key back.
 */
class LeaseRenewalTest {
  private static final Duration LEASE = IdempotencyConfig.DEFAULT_LEASE;
  private static final Duration THIRD = LEASE.dividedBy(3);

  private final TestClock clock = new TestClock();
  private final IdempotencyStore store = InMemoryIdempotencyStore.custom().clock(clock).build();
  private final ManualTime time = new ManualTime();
  private final List<SigloEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger effects = new AtomicInteger();
  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch running = new CountDownLatch(1);
  private final List<MessageProcessor> processors = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeProcessors() {
    processors.forEach(MessageProcessor::close);
  }

  private DefaultMessageProcessor<String> processor(MessageHandler<String> handler, Time t) {
    DefaultMessageProcessor<String> p =
        new DefaultMessageProcessor<>(
            MessageProcessorConfig.builder(PayloadDecoder.utf8(), handler)
                .store(store)
                .time(t)
                .listener(events::add)
                .build());
    processors.add(p);
    return p;
  }

  /** A handler that counts its effect and works until the test releases it. */
  private String longWork(String payload) throws InterruptedException {
    effects.incrementAndGet();
    running.countDown();
    assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
    return "done:" + payload;
  }

  /** Lets {@code d} pass on the store's clock and the engine's time, renewing what is due. */
  private void pass(DefaultMessageProcessor<String> p, Duration d) {
    clock.advance(d);
    time.advance(d);
    p.leases().renewDue();
  }

  private ClaimStatus claimElsewhere(String key) {
    return store.claim(new ClaimRequest(key, null, LEASE)).status();
  }

  @Test
  void aHandlerRunningThreeLeasesKeepsItsClaimAndItsCopySettlesAsADuplicate() throws Exception {
    DefaultMessageProcessor<String> p = processor((v, ctx) -> longWork(v), time);
    CompletableFuture<Disposition> first =
        CompletableFuture.supplyAsync(() -> p.process(Messages.keyed("order-1", "a")));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    for (int i = 0; i < 9; i++) {
      pass(p, THIRD);
    }

    String key = IdempotencyKeys.defaults().key("order-1");
    assertThat(claimElsewhere(key))
        .as("three leases later, the live holder still holds the key")
        .isEqualTo(ClaimStatus.IN_PROGRESS);
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Disposition.Ack.class);
    Disposition copy = p.process(Messages.keyed("order-1", "a"));
    assertThat(((Disposition.Ack) copy).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(effects).hasValue(1);
    assertThat(p.leases().held()).as("released once completed").isZero();
  }

  @Test
  void aStepRunningThreeLeasesKeepsItsOwnClaim() throws Exception {
    Step<String, String> charge =
        Step.of("charge", String.class, this::longWork).idempotent(v -> v);
    DefaultMessageProcessor<String> p = processor((v, ctx) -> ctx.run(charge, v), time);
    CompletableFuture<Disposition> first =
        CompletableFuture.supplyAsync(() -> p.process(Messages.keyed("order-2", "inv-9")));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

    for (int i = 0; i < 9; i++) {
      pass(p, THIRD);
    }

    IdempotencyKeys keys = IdempotencyKeys.defaults();
    String stepKey = keys.scoped(keys.key("order-2"), "charge", "inv-9");
    assertThat(claimElsewhere(stepKey)).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(claimElsewhere(keys.key("order-2"))).isEqualTo(ClaimStatus.IN_PROGRESS);
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Disposition.Ack.class);
    assertThat(store.getResult(stepKey)).contains(new Outcome.Success("\"done:inv-9\""));
    assertThat(effects).hasValue(1);
  }

  @Test
  void anExecutionWhoseClaimWasTakenOverSettlesOnTheNewHoldersResultWithoutARetry()
      throws Exception {
    CountDownLatch secondRelease = new CountDownLatch(1);
    CompletableFuture<Disposition> second = new CompletableFuture<>();
    DefaultMessageProcessor<String> other =
        processor(
            (v, ctx) -> {
              effects.incrementAndGet();
              assertThat(secondRelease.await(10, TimeUnit.SECONDS)).isTrue();
              return "other";
            },
            Time.SYSTEM);
    DefaultMessageProcessor<String> frozen = processor((v, ctx) -> longWork(v), time);
    time.afterSleep(
        elapsed -> {
          // the frozen execution waits on the new holder: let that one finish now
          secondRelease.countDown();
          second.join();
        });

    CompletableFuture<Disposition> first =
        CompletableFuture.supplyAsync(() -> frozen.process(Messages.keyed("order-3", "a")));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    clock.advance(LEASE.plusSeconds(1)); // frozen: no renewal ran, the lease ended
    CompletableFuture.runAsync(
        () -> second.complete(other.process(Messages.keyed("order-3", "a"))));
    String key = IdempotencyKeys.defaults().key("order-3");
    await().atMost(Duration.ofSeconds(10)).until(() -> effects.get() == 2);
    pass(frozen, THIRD); // the frozen process wakes up: its renewal finds the claim taken over
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> events.stream().anyMatch(e -> e instanceof SigloEvent.LeaseLost));
    release.countDown();

    Disposition d = first.get(10, TimeUnit.SECONDS);
    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(((Disposition.Ack) d).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(((Disposition.Ack) d).outcome()).isEqualTo(new Outcome.Success("\"other\""));
    assertThat(store.getResult(key)).contains(new Outcome.Success("\"other\""));
    assertThat(effects).as("the late execution did not take the key back").hasValue(2);
    assertThat(events)
        .as("it settled instead of retrying")
        .noneMatch(e -> e instanceof SigloEvent.Retried);
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.LeaseLost)
        .singleElement()
        .extracting(SigloEvent::key)
        .isEqualTo(key);
  }

  /** A store whose renewals fail as unavailable while {@code down} holds, counting them. */
  private static IdempotencyStore renewingStore(AtomicInteger renewals, AtomicBoolean down) {
    return new IdempotencyStore() {
      @Override
      public dev.siglo.consumer.store.ClaimResult claim(ClaimRequest r) {
        throw new UnsupportedOperationException();
      }

      @Override
      public void complete(
          String key, dev.siglo.consumer.store.ClaimToken t, Outcome o, Duration retention) {}

      @Override
      public void fail(String key, dev.siglo.consumer.store.ClaimToken t) {}

      @Override
      public java.time.Instant renewLease(
          String key, dev.siglo.consumer.store.ClaimToken t, Duration lease) {
        renewals.incrementAndGet();
        if (down.get()) {
          throw new dev.siglo.consumer.error.IdempotencyStoreUnavailableException("down");
        }
        return java.time.Instant.now().plus(lease);
      }

      @Override
      public java.util.Optional<Outcome> getResult(String key) {
        return java.util.Optional.empty();
      }

      @Override
      public void clear() {}
    };
  }

  private void holdOne(LeaseKeeper keeper) {
    keeper.hold(
        Messages.keyed("order-9", "x"),
        IdempotencyKeys.defaults().key("order-9"),
        new dev.siglo.consumer.store.ClaimToken("t"),
        LEASE);
  }

  private void renewFor(LeaseKeeper keeper, Duration d) {
    for (Duration t = Duration.ZERO; t.compareTo(d) < 0; t = t.plus(LeaseKeeper.TICK)) {
      time.advance(LeaseKeeper.TICK);
      keeper.renewDue();
    }
  }

  @Test
  void aRenewalThatFailsOnAnUnavailableStoreIsRetriedOncePerSecondNotEveryTick() {
    AtomicInteger renewals = new AtomicInteger();
    LeaseKeeper keeper =
        new LeaseKeeper(
            renewingStore(renewals, new AtomicBoolean(true)),
            time,
            new EventSink(List.of()),
            StoreOutage.NONE);
    holdOne(keeper);

    renewFor(keeper, Duration.ofSeconds(60));

    // due after a third of the lease (40 s), then once a second for the remaining 20 s
    assertThat(renewals.get()).isBetween(20, 21);
    keeper.close();
  }

  @Test
  void moreClaimsOnOneThreadThanItHasSlotsAreAllRenewedAndReleased() {
    AtomicInteger renewals = new AtomicInteger();
    LeaseKeeper keeper =
        new LeaseKeeper(
            renewingStore(renewals, new AtomicBoolean(false)),
            time,
            new EventSink(List.of()),
            StoreOutage.NONE);
    List<LeaseKeeper.Held> held = new java.util.ArrayList<>();
    int claims = LeaseKeeper.SLOTS + 3;
    for (int i = 0; i < claims; i++) {
      held.add(
          keeper.hold(
              Messages.keyed("order-" + i, "x"),
              IdempotencyKeys.defaults().key("order-" + i),
              new dev.siglo.consumer.store.ClaimToken("t" + i),
              LEASE));
    }
    assertThat(keeper.held()).isEqualTo(claims);

    renewFor(keeper, THIRD.plus(LeaseKeeper.TICK));

    assertThat(renewals).as("each claim renewed once, slot or not").hasValue(claims);
    held.forEach(keeper::release);
    assertThat(keeper.held()).isZero();
    keeper.close();
  }

  @Test
  void aRenewalFindingTheStoreDownReportsTheOutageAndNoneIsSentUntilAProbeFindsItBack() {
    AtomicInteger renewals = new AtomicInteger();
    AtomicBoolean down = new AtomicBoolean(true);
    AtomicBoolean known = new AtomicBoolean();
    StoreOutage outage =
        new StoreOutage() {
          @Override
          public void storeUnavailable(Throwable cause) {
            known.set(true);
          }

          @Override
          public boolean storeDown() {
            return known.get();
          }

          @Override
          public boolean awaitStore(Duration timeout) {
            return !known.get();
          }
        };
    LeaseKeeper keeper =
        new LeaseKeeper(renewingStore(renewals, down), time, new EventSink(List.of()), outage);
    holdOne(keeper);

    renewFor(keeper, Duration.ofSeconds(100)); // due at 40 s; the store is down for a minute after

    assertThat(known).as("the failed renewal reported the outage").isTrue();
    assertThat(renewals).as("one renewal; the outage's probes speak for the rest").hasValue(1);
    down.set(false);
    known.set(false); // a probe found the store
    renewFor(keeper, LeaseKeeper.TICK);
    assertThat(renewals).as("renewed at the first tick after the store's return").hasValue(2);
    keeper.close();
  }

  @Test
  void aThreadPerMessageLeavesNoSlotsBehindOnceItsThreadsEnded() throws Exception {
    DefaultMessageProcessor<String> p = processor((payload, ctx) -> payload, time);
    for (int i = 0; i < 200; i++) {
      String key = "per-task-" + i;
      Thread t = new Thread(() -> p.process(Messages.keyed(key, "{}")));
      t.start();
      t.join(10_000);
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(p.leases().registeredThreads()).isGreaterThan(0);

    p.leases().renewDue();

    assertThat(p.leases().registeredThreads())
        .as("the scan drops the slots of the threads that ended")
        .isZero();
    assertThat(p.leases().held()).isZero();
  }
}
