package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.ReduceStep;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.MissingIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.PayloadDecodingException;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.Fingerprints;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.OutcomeCodec;
import dev.siglo.consumer.support.ManualTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MessageProcessorTest {
  private static final RetryConfig NO_IN_PROCESS_RETRY =
      RetryConfig.custom().maxAttempts(1).build();

  private final RecordingStore store = new RecordingStore();
  private final Map<String, AtomicInteger> sideEffects = new ConcurrentHashMap<>();
  private final List<SigloEvent> events = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** A card declined by the gateway: a permanent business error with a decline code. */
  static final class CardDeclinedException extends PermanentException {
    private static final long serialVersionUID = 1L;

    CardDeclinedException(String message) {
      super(message);
    }

    @Override
    public Map<String, String> declineAttributes() {
      return Map.of("code", "insufficient_funds");
    }
  }

  private MessageProcessor processor(
      MessageHandler<String> handler, Consumer<MessageProcessorConfig.Builder<String>> customize) {
    MessageProcessorConfig.Builder<String> b =
        MessageProcessorConfig.builder(PayloadDecoder.utf8(), handler)
            .store(store)
            .retry(NO_IN_PROCESS_RETRY)
            .listener(events::add);
    customize.accept(b);
    return MessageProcessor.of(b.build());
  }

  private MessageProcessor processor(MessageHandler<String> handler) {
    return processor(handler, b -> {});
  }

  private int effects(String rawKey) {
    AtomicInteger n = sideEffects.get(rawKey);
    return n == null ? 0 : n.get();
  }

  private void effect(String name) {
    sideEffects.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
  }

  /** Charges once per call, counting charges per key; the result is unique per charge. */
  private Object charge(String payload, HandlerContext ctx) {
    String raw = ctx.message().header("idempotency-key").orElseThrow();
    effect(raw);
    return "receipt-" + raw + "-" + UUID.randomUUID();
  }

  /** Charges, signals that it runs, then blocks until {@code finish} opens. */
  private MessageHandler<String> blockingCharge(CountDownLatch running, CountDownLatch finish) {
    return (payload, ctx) -> {
      Object r = charge(payload, ctx);
      running.countDown();
      finish.await(30, TimeUnit.SECONDS);
      return r;
    };
  }

  private static IdempotencyConfig settling(Duration timeout, Duration poll) {
    return IdempotencyConfig.custom().settleTimeout(timeout).pollInterval(poll).build();
  }

  private static String keyOf(String raw) {
    return IdempotencyKeys.defaults().key(raw);
  }

  private <E extends SigloEvent> long count(Class<E> type) {
    return events.stream().filter(type::isInstance).count();
  }

  @Test
  void duplicateStormRunsEachHandlerExactlyOnceAndDuplicatesSettleOnTheCachedResult()
      throws Exception {
    int messages = 500;
    int copies = 4;
    int threads = 32;
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              Object receipt = charge(payload, ctx);
              Thread.sleep(2); // simulated gateway latency keeps the copies overlapping
              return receipt;
            },
            b ->
                b.idempotency(
                    IdempotencyConfig.custom().pollInterval(Duration.ofMillis(1)).build()));
    ExecutorService workers = Executors.newFixedThreadPool(threads);
    Map<String, List<Disposition>> byKey = new ConcurrentHashMap<>();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int m = 0; m < messages; m++) {
        String raw = "order-" + m;
        Message message = Messages.keyed(raw, "{\"order\":" + m + ",\"amount\":1250}");
        CyclicBarrier together = new CyclicBarrier(copies);
        for (int c = 0; c < copies; c++) {
          futures.add(
              workers.submit(
                  () -> {
                    together.await(30, TimeUnit.SECONDS);
                    Disposition d = p.process(Messages.redelivery(message));
                    byKey.computeIfAbsent(raw, k -> new CopyOnWriteArrayList<>()).add(d);
                    return null;
                  }));
        }
      }
      for (Future<?> f : futures) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      workers.shutdownNow();
    }

    for (int m = 0; m < messages; m++) {
      String raw = "order-" + m;
      assertThat(effects(raw)).as("charges of %s", raw).isEqualTo(1);
      List<Disposition> ds = byKey.get(raw);
      assertThat(ds).hasSize(copies).allMatch(d -> d instanceof Disposition.Ack);
      assertThat(ds.stream().map(d -> ((Disposition.Ack) d).reason()))
          .containsOnlyOnce(Disposition.AckReason.PROCESSED);
      assertThat(ds.stream().map(d -> ((Disposition.Ack) d).outcome()).distinct())
          .as("every copy returns the one charge's receipt")
          .hasSize(1);
    }
    assertThat(count(SigloEvent.Processed.class)).isEqualTo(messages);
    assertThat(count(SigloEvent.Duplicate.class)).isEqualTo((long) messages * (copies - 1));
    assertThat(store.totalAnswers(ClaimStatus.IN_PROGRESS))
        .as("duplicates found the first copy in flight and waited for it to settle")
        .isPositive();
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.Duplicate d && d.settled())
        .as("duplicate events say they settled on an in-flight execution")
        .isNotEmpty();
    assertThat(count(SigloEvent.Conflict.class)).isZero();
  }

  @Test
  void permanentDeclineIsCachedAndARedeliveredDuplicateGetsItWithoutCallingTheGateway() {
    AtomicInteger gatewayCalls = new AtomicInteger();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              gatewayCalls.incrementAndGet();
              throw new CardDeclinedException("card ending 4242 declined");
            });
    Message m = Messages.keyed("order-declined", "{\"amount\":999999}");

    Disposition first = p.process(m);
    Disposition second = p.process(Messages.redelivery(m));

    assertThat(first).isInstanceOf(Disposition.AckDeclined.class);
    Disposition.AckDeclined d1 = (Disposition.AckDeclined) first;
    assertThat(d1.replayed()).isFalse();
    assertThat(d1.decline().errorType()).isEqualTo(CardDeclinedException.class.getName());
    assertThat(d1.decline().attributes()).containsEntry("code", "insufficient_funds");
    assertThat(second).isEqualTo(new Disposition.AckDeclined(d1.decline(), true, null));
    assertThat(gatewayCalls).hasValue(1);
    assertThat(store.getResult(keyOf("order-declined"))).contains(d1.decline());
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.Declined)
        .extracting(e -> ((SigloEvent.Declined) e).replayed())
        .containsExactly(false, true);
  }

  @Test
  void transientFailureReleasesTheClaimAndTheNextDeliveryRunsAgain() {
    AtomicInteger calls = new AtomicInteger();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              if (calls.incrementAndGet() == 1) {
                throw new TransientException("gateway timed out");
              }
              return "charged";
            });
    Message m = Messages.keyed("order-flaky", "{}");

    Disposition first = p.process(m);

    assertThat(first).isInstanceOf(Disposition.NackRetry.class);
    Disposition.NackRetry nack = (Disposition.NackRetry) first;
    assertThat(nack.cause()).isInstanceOf(TransientException.class);
    assertThat(nack.delay()).isPositive();
    assertThat(store.getResult(keyOf("order-flaky"))).isEmpty();

    Disposition second = p.process(Messages.redelivery(m));

    assertThat(second)
        .isEqualTo(
            new Disposition.Ack(
                Disposition.AckReason.PROCESSED, new Outcome.Success("\"charged\"")));
    assertThat(calls).hasValue(2);
    assertThat(store.answers(keyOf("order-flaky"), ClaimStatus.CLAIMED)).isEqualTo(2);
  }

  @Test
  void transientFailuresAreRetriedInProcessWithBackoffThenSucceed() {
    AtomicInteger calls = new AtomicInteger();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              if (calls.incrementAndGet() < RetryConfig.DEFAULT_MAX_ATTEMPTS) {
                throw new java.io.IOException("connection reset");
              }
              return ctx.attempt();
            },
            b -> b.retry(RetryConfig.defaults()).time(new ManualTime()));

    Disposition d = p.process(Messages.keyed("order-retried", "{}"));

    assertThat(d)
        .isEqualTo(new Disposition.Ack(Disposition.AckReason.PROCESSED, new Outcome.Success("3")));
    assertThat(events)
        .filteredOn(e -> e instanceof SigloEvent.Retried)
        .extracting(
            e -> ((SigloEvent.Retried) e).attempt(), e -> ((SigloEvent.Retried) e).redelivery())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, false),
            org.assertj.core.groups.Tuple.tuple(2, false));
  }

  @Test
  void transientFailureUntilMaxDeliveriesIsDeadLetteredWithoutCachingADecline() {
    AtomicInteger calls = new AtomicInteger();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              throw new java.util.concurrent.TimeoutException("gateway 503");
            },
            b -> b.retry(RetryConfig.defaults()).time(new ManualTime()));
    Message m = Messages.keyed("order-doomed", "{}");
    List<Disposition> deliveries = new ArrayList<>();

    for (int delivery = 1; delivery <= RetryConfig.DEFAULT_MAX_DELIVERIES; delivery++) {
      deliveries.add(p.process(m));
      m = Messages.redelivery(m);
    }

    Disposition last = deliveries.remove(deliveries.size() - 1);
    assertThat(deliveries).allMatch(d -> d instanceof Disposition.NackRetry);
    assertThat(((Disposition.NackRetry) deliveries.get(1)).delay())
        .isGreaterThanOrEqualTo(Duration.ofMillis(500));
    assertThat(last).isInstanceOf(Disposition.DeadLetter.class);
    Disposition.DeadLetter dl = (Disposition.DeadLetter) last;
    assertThat(dl.reason()).isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
    assertThat(dl.errorClass()).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(dl.attempts()).isEqualTo(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(calls)
        .hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS * RetryConfig.DEFAULT_MAX_DELIVERIES);
    assertThat(store.getResult(keyOf("order-doomed"))).as("no decline cached").isEmpty();
    assertThat(store.claim(new ClaimRequest(keyOf("order-doomed"), null, Duration.ofSeconds(1))))
        .as("replaying it from the DLQ executes it")
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void failingOnAfterHookLeavesTheRecordNotCompletedAndReleasesTheClaim() throws Exception {
    CountDownLatch inHook = new CountDownLatch(1);
    CountDownLatch releaseHook = new CountDownLatch(1);
    MessageProcessor p =
        processor(
            this::charge,
            b ->
                b.onAfter(
                    (message, result) -> {
                      inHook.countDown();
                      releaseHook.await(30, TimeUnit.SECONDS);
                      throw new TransientException("audit log unavailable");
                    }));
    String key = keyOf("order-hooked");

    Future<Disposition> running =
        pool.submit(() -> p.process(Messages.keyed("order-hooked", "{}")));
    assertThat(inHook.await(30, TimeUnit.SECONDS)).isTrue();
    // a concurrent reader while the hook runs: the handler returned, but nothing is completed
    assertThat(store.getResult(key)).isEmpty();
    assertThat(store.claim(new ClaimRequest(key, null, Duration.ofSeconds(5))).status())
        .isEqualTo(ClaimStatus.IN_PROGRESS);
    releaseHook.countDown();
    Disposition d = running.get(30, TimeUnit.SECONDS);

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(store.getResult(key)).isEmpty();
    assertThat(store.claim(new ClaimRequest(key, null, Duration.ofSeconds(5))).status())
        .as("the claim was released")
        .isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void failingStepHookLeavesTheStepRecordNotCompletedAndReleasesItsClaim() {
    AtomicInteger hookCalls = new AtomicInteger();
    Step<String, String> step =
        Step.of(
                "reserve",
                String.class,
                (String in) -> {
                  effect("reserve");
                  return "r-" + in;
                })
            .idempotent(in -> in)
            .onAfter(
                (in, r) -> {
                  if (hookCalls.incrementAndGet() == 1) {
                    throw new TransientException("hook failed");
                  }
                });
    MessageProcessor p = processor((payload, ctx) -> ctx.run(step, "item-1"));
    Message m = Messages.keyed("order-step-hook", "{}");
    String stepKey =
        IdempotencyKeys.defaults().scoped(keyOf("order-step-hook"), "reserve", "item-1");

    assertThat(p.process(m)).isInstanceOf(Disposition.NackRetry.class);
    assertThat(store.getResult(stepKey)).isEmpty();
    assertThat(store.answers(stepKey, ClaimStatus.CLAIMED)).isEqualTo(1);

    assertThat(p.process(Messages.redelivery(m))).isInstanceOf(Disposition.Ack.class);
    assertThat(effects("reserve")).isEqualTo(2);
    assertThat(store.getResult(stepKey)).contains(new Outcome.Success("\"r-item-1\""));
  }

  @Test
  void stepsResumeAfterATransientFailureWithCachedResultsOfTheCompletedSteps() {
    AtomicInteger cCalls = new AtomicInteger();
    Step<String, String> a =
        Step.of(
                "a",
                String.class,
                (String in) -> {
                  effect("a");
                  return "A(" + in + ")";
                })
            .idempotent(in -> "a");
    Step<String, String> b =
        Step.of(
                "b",
                String.class,
                (String in) -> {
                  effect("b");
                  return in + "B";
                })
            .idempotent(in -> "b");
    Step<String, String> c =
        Step.of(
                "c",
                String.class,
                (String in) -> {
                  effect("c");
                  if (cCalls.incrementAndGet() == 1) {
                    throw new TransientException("C's dependency timed out");
                  }
                  return in + "C";
                })
            .idempotent(in -> "c");
    MessageProcessor p = processor((payload, ctx) -> ctx.run(c, ctx.run(b, ctx.run(a, payload))));
    Message m = Messages.keyed("order-steps", "x");

    assertThat(p.process(m)).isInstanceOf(Disposition.NackRetry.class);
    Disposition d = p.process(Messages.redelivery(m));

    assertThat(d)
        .isEqualTo(
            new Disposition.Ack(
                Disposition.AckReason.PROCESSED, new Outcome.Success("\"A(x)BC\"")));
    assertThat(effects("a")).isEqualTo(1);
    assertThat(effects("b")).isEqualTo(1);
    assertThat(effects("c")).isEqualTo(2);
  }

  @Test
  void reduceStepResumesAfterTheLastCompletedElement() {
    AtomicInteger failuresLeft = new AtomicInteger(1);
    ReduceStep<Integer, Integer> sum =
        ReduceStep.<Integer, Integer>of(
                "sum",
                Integer.class,
                (acc, e) -> {
                  if (e == 3 && failuresLeft.getAndDecrement() > 0) {
                    throw new TransientException("element 3 failed once");
                  }
                  effect("element-" + e);
                  return acc + e;
                })
            .idempotent(e -> "e" + e, IdempotencyConfig.defaults());
    MessageProcessor p =
        processor(
            (payload, ctx) -> ctx.reduce(sum, List.of(1, 2, 3, 4, 5), 0),
            b -> b.retry(RetryConfig.defaults()).time(new ManualTime()));

    Disposition d = p.process(Messages.keyed("order-reduce", "{}"));

    assertThat(d)
        .isEqualTo(new Disposition.Ack(Disposition.AckReason.PROCESSED, new Outcome.Success("15")));
    for (int e = 1; e <= 5; e++) {
      assertThat(effects("element-" + e)).as("element %d", e).isEqualTo(1);
    }
  }

  @Test
  void aStepDeclinedBeforeIsNotRunAgainAndDeclinesTheMessageWithTheSameError() {
    Step<String, String> charge =
        Step.of(
                "charge",
                String.class,
                (String customer) -> {
                  effect("charge-" + customer);
                  throw new CardDeclinedException("card of " + customer + " declined");
                })
            .idempotent(customer -> "customer:" + customer)
            .absoluteKey();
    MessageProcessor p = processor((payload, ctx) -> ctx.run(charge, payload));

    Disposition first = p.process(Messages.keyed("order-1", "cust-9"));
    Disposition second = p.process(Messages.keyed("order-2", "cust-9"));

    assertThat(effects("charge-cust-9")).isEqualTo(1);
    assertThat(first).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(second).isInstanceOf(Disposition.AckDeclined.class);
    Disposition.AckDeclined d2 = (Disposition.AckDeclined) second;
    assertThat(d2.replayed()).isFalse();
    assertThat(d2.decline().errorType()).isEqualTo(CardDeclinedException.class.getName());
    assertThat(d2.decline().attributes()).containsEntry("code", "insufficient_funds");
  }

  @Test
  void duplicateArrivingWhileTheFirstIsInFlightWaitsAndReturnsItsResult() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    MessageProcessor p =
        processor(
            blockingCharge(firstRunning, finishFirst),
            b -> b.idempotency(settling(Duration.ofSeconds(30), Duration.ofMillis(5))));
    Message m = Messages.keyed("order-settle", "{}");
    String key = keyOf("order-settle");

    Future<Disposition> first = pool.submit(() -> p.process(m));
    assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
    Future<Disposition> duplicate = pool.submit(() -> p.process(Messages.redelivery(m)));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> store.answers(key, ClaimStatus.IN_PROGRESS) >= 2);
    assertThat(duplicate).isNotDone();
    finishFirst.countDown();

    Disposition.Ack a1 = (Disposition.Ack) first.get(30, TimeUnit.SECONDS);
    Disposition.Ack a2 = (Disposition.Ack) duplicate.get(30, TimeUnit.SECONDS);
    assertThat(a1.reason()).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(a2).isEqualTo(new Disposition.Ack(Disposition.AckReason.DUPLICATE, a1.outcome()));
    assertThat(effects("order-settle")).isEqualTo(1);
  }

  @Test
  void duplicateThatDoesNotSettleInTimeGetsATransientConflictAndIsRetriedLater() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    MessageProcessor p =
        processor(
            blockingCharge(firstRunning, finishFirst),
            b -> b.time(new ManualTime())); // the default settle timeout passes at once
    Message m = Messages.keyed("order-conflict", "{}");

    Future<Disposition> first = pool.submit(() -> p.process(m));
    assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
    Disposition duplicate = p.process(Messages.redelivery(m));
    finishFirst.countDown();

    assertThat(duplicate).isInstanceOf(Disposition.NackRetry.class);
    Throwable cause = ((Disposition.NackRetry) duplicate).cause();
    assertThat(cause)
        .isInstanceOf(IdempotencyConflictException.class)
        .hasMessageContaining("did not settle");
    assertThat(ErrorClassifier.defaults().classify(cause)).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(count(SigloEvent.Conflict.class)).isEqualTo(1);
    assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(Disposition.Ack.class);
    assertThat(p.process(Messages.redelivery(Messages.redelivery(m))))
        .isInstanceOf(Disposition.Ack.class)
        .extracting(d -> ((Disposition.Ack) d).reason())
        .isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(effects("order-conflict")).isEqualTo(1);
  }

  @Test
  void undecodablePayloadIsDeadLetteredAsPoisonWithoutRunningTheHandler() {
    MessageProcessor p = processor(this::charge);
    Message poison =
        Message.builder("p-1", dev.siglo.consumer.MessageSource.of("test", "orders"))
            .header("idempotency-key", "order-poison")
            .payload(new byte[] {(byte) 0xC3, (byte) 0x28})
            .build();

    Disposition d = p.process(poison);

    assertThat(d).isInstanceOf(Disposition.DeadLetter.class);
    Disposition.DeadLetter dl = (Disposition.DeadLetter) d;
    assertThat(dl.reason()).isEqualTo(DeadLetterReason.POISON_PAYLOAD);
    assertThat(dl.errorClass()).isEqualTo(ErrorClass.PERMANENT);
    assertThat(dl.cause()).isInstanceOf(PayloadDecodingException.class).hasMessageContaining("p-1");
    assertThat(sideEffects).isEmpty();
  }

  @Test
  void missingKeyIsDeadLetteredByDefault() {
    MessageProcessor p = processor(this::charge);

    Disposition d = p.process(Messages.unkeyed("{}"));

    assertThat(d).isInstanceOf(Disposition.DeadLetter.class);
    Disposition.DeadLetter dl = (Disposition.DeadLetter) d;
    assertThat(dl.reason()).isEqualTo(DeadLetterReason.MISSING_KEY);
    assertThat(dl.cause())
        .isInstanceOf(MissingIdempotencyKeyException.class)
        .hasMessageContaining("header 'idempotency-key', else record key");
    assertThat(sideEffects).isEmpty();
  }

  @Test
  void missingKeyIsProcessedWithoutIdempotencyWhenOptedIn() {
    AtomicInteger calls = new AtomicInteger();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              assertThat(ctx.idempotencyKey()).isEmpty();
              assertThat(ctx.claimToken()).isEmpty();
              return calls.incrementAndGet();
            },
            b -> b.missingKeyPolicy(MissingKeyPolicy.PROCESS_WITHOUT_IDEMPOTENCY));
    Message m = Messages.unkeyed("{}");

    assertThat(p.process(m))
        .isEqualTo(new Disposition.Ack(Disposition.AckReason.UNKEYED, new Outcome.Success("1")));
    assertThat(p.process(Messages.redelivery(m)))
        .isEqualTo(new Disposition.Ack(Disposition.AckReason.UNKEYED, new Outcome.Success("2")));
  }

  @Test
  void hostileKeysAreDeadLetteredAndLongKeysAreDigested() {
    MessageProcessor p = processor(this::charge);

    Disposition control = p.process(Messages.keyed("order\r\nX-Injected: 1", "{}"));
    Disposition huge = p.process(Messages.keyed("k".repeat(100_000), "{}"));
    String longKey = "order-" + "9".repeat(300);
    Disposition digested = p.process(Messages.keyed(longKey, "{}"));

    assertThat(control).isInstanceOf(Disposition.DeadLetter.class);
    assertThat(((Disposition.DeadLetter) control).reason()).isEqualTo(DeadLetterReason.INVALID_KEY);
    assertThat(((Disposition.DeadLetter) control).cause())
        .isInstanceOf(InvalidIdempotencyKeyException.class)
        .hasMessageContaining("U+000D");
    assertThat(huge).isInstanceOf(Disposition.DeadLetter.class);
    assertThat(((Disposition.DeadLetter) huge).cause()).hasMessageContaining("100000 characters");
    assertThat(((Disposition.DeadLetter) huge).cause().getMessage()).hasSizeLessThan(200);
    assertThat(digested).isInstanceOf(Disposition.Ack.class);
    assertThat(effects("order\r\nX-Injected: 1")).isZero();
    assertThat(effects(longKey)).isEqualTo(1);
  }

  @Test
  void byDefaultARedeliveryWhosePayloadDiffersInASendTimestampIsADuplicateNotAKeyReuse() {
    MessageProcessor p = processor(this::charge);
    p.process(Messages.keyed("order-stamped", "{\"amount\":100,\"sentAt\":1}"));

    Disposition again = p.process(Messages.keyed("order-stamped", "{\"amount\":100,\"sentAt\":2}"));

    assertThat(again)
        .isInstanceOfSatisfying(
            Disposition.Ack.class,
            ack -> assertThat(ack.reason()).isEqualTo(Disposition.AckReason.DUPLICATE));
    assertThat(effects("order-stamped")).isEqualTo(1);
  }

  @Test
  void keyReusedWithADifferentPayloadIsDeadLetteredAndTheOriginalOutcomeKept() {
    MessageProcessor p = processor(this::charge, b -> b.fingerprint(Fingerprints.payloadSha256()));
    Disposition original = p.process(Messages.keyed("order-reuse", "{\"amount\":100}"));

    Disposition reuse = p.process(Messages.keyed("order-reuse", "{\"amount\":999}"));

    assertThat(reuse).isInstanceOf(Disposition.DeadLetter.class);
    assertThat(((Disposition.DeadLetter) reuse).reason()).isEqualTo(DeadLetterReason.KEY_REUSE);
    assertThat(((Disposition.DeadLetter) reuse).cause())
        .isInstanceOf(IdempotencyKeyReuseException.class);
    assertThat(effects("order-reuse")).isEqualTo(1);
    assertThat(store.getResult(keyOf("order-reuse")))
        .contains(((Disposition.Ack) original).outcome());
  }

  /** A result Jackson cannot serialize (its getter throws). */
  static final class Unencodable {
    public String getValue() {
      throw new IllegalStateException("no JSON for you");
    }
  }

  @Test
  void unencodableResultIsCachedAsADeclineSoTheSideEffectIsNotRepeated() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              charge(payload, ctx);
              return new Unencodable();
            });
    Message m = Messages.keyed("order-unencodable", "{}");

    Disposition d = p.process(m);
    Disposition again = p.process(Messages.redelivery(m));

    assertThat(d).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(((Disposition.AckDeclined) d).decline().errorType())
        .isEqualTo(OutcomeEncodingException.class.getName());
    assertThat(((Disposition.AckDeclined) d).decline().message())
        .contains(Unencodable.class.getName());
    assertThat(again).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(effects("order-unencodable")).isEqualTo(1);
  }

  @Test
  void resultOverTheSizeLimitIsCachedAsADecline() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              charge(payload, ctx);
              return "z".repeat(100_000);
            });

    Disposition d = p.process(Messages.keyed("order-huge-result", "{}"));

    assertThat(d).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(((Disposition.AckDeclined) d).decline().errorType())
        .isEqualTo(OutcomeTooLargeException.class.getName());
    assertThat(store.getResult(keyOf("order-huge-result")))
        .containsInstanceOf(Outcome.Declined.class);
  }

  @Test
  void storeOutageOnClaimFailsClosedRunsNoHandlerAndIsRetriedLater() {
    MessageProcessor p = processor(this::charge);
    store.failNextClaims.set(1);
    Message m = Messages.keyed("order-outage", "{}");

    Disposition d = p.process(m);

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) d).cause())
        .isInstanceOf(IdempotencyStoreUnavailableException.class);
    assertThat(effects("order-outage")).isZero();
    assertThat(p.process(Messages.redelivery(m))).isInstanceOf(Disposition.Ack.class);
    assertThat(effects("order-outage")).isEqualTo(1);
  }

  @Test
  void storeOutageOnCompleteIsRetriedUntilTheOutcomeIsRecordedWithoutRepeatingTheHandler() {
    MessageProcessor p = processor(this::charge);
    store.failNextCompletes.set(3);

    Disposition d = p.process(Messages.keyed("order-complete-outage", "{}"));

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(store.completeCalls).hasValue(4);
    assertThat(effects("order-complete-outage")).isEqualTo(1);
    assertThat(store.getResult(keyOf("order-complete-outage")))
        .contains(((Disposition.Ack) d).outcome());
  }

  @Test
  void namespaceAndVersionScopeTheStoredKey() {
    MessageProcessor p =
        processor(
            this::charge,
            b -> b.keys(IdempotencyKeys.custom().namespace("tenant-a").version("2.0.0").build()));

    p.process(Messages.keyed("order-1234", "{}"));

    assertThat(store.getResult("ff:idemp:tenant-a:2.0.0:order-1234")).isPresent();
  }

  @Test
  void customClassificationTurnsAGatewayErrorCodeIntoADecline() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              effect("gw");
              throw new IllegalStateException("gateway said: invalid_currency XYZ");
            },
            b ->
                b.classifier(
                    ErrorClassifier.custom().permanentMessage("invalid_currency").build()));
    Message m = Messages.keyed("order-currency", "{}");

    assertThat(p.process(m)).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(p.process(Messages.redelivery(m))).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(effects("gw")).isEqualTo(1);
  }

  @Test
  void eventListenerFailuresNeverChangeTheDisposition() {
    MessageProcessor p =
        processor(
            this::charge,
            b ->
                b.listener(
                    e -> {
                      throw new IllegalStateException("broken listener");
                    }));

    assertThat(p.process(Messages.keyed("order-listener", "{}")))
        .isInstanceOf(Disposition.Ack.class);
    assertThat(Collections.frequency(List.of(effects("order-listener")), 1)).isEqualTo(1);
  }

  @Test
  void payloadIsDecodedForTheHandlerAndResultsAreJson() {
    record Order(String id, int amount) {}
    AtomicInteger seen = new AtomicInteger();
    MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.builder(
                    PayloadDecoder.json(Order.class),
                    (Order o, HandlerContext ctx) -> {
                      seen.addAndGet(o.amount());
                      return Map.of("charged", o.amount());
                    })
                .store(store)
                .build());

    Disposition d =
        p.process(
            Messages.keyed(
                "o-7",
                new String(
                    "{\"id\":\"o-7\",\"amount\":1250}".getBytes(StandardCharsets.UTF_8),
                    StandardCharsets.UTF_8)));

    assertThat(seen).hasValue(1250);
    assertThat(d)
        .isEqualTo(
            new Disposition.Ack(
                Disposition.AckReason.PROCESSED, new Outcome.Success("{\"charged\":1250}")));
  }

  @Test
  void interruptDuringInProcessBackoffNacksPromptlyAndNeverDeadLettersEvenOnTheLastDelivery()
      throws Exception {
    CountDownLatch failedOnce = new CountDownLatch(1);
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              failedOnce.countDown();
              throw new TransientException("gateway timed out");
            },
            b ->
                b.retry(
                    RetryConfig.custom()
                        .maxAttempts(5)
                        .backoff(Duration.ofMinutes(5), Duration.ofMinutes(5))
                        .maxDeliveries(1)
                        .build()));
    AtomicReference<Disposition> disposition = new AtomicReference<>();
    AtomicBoolean interruptedAfter = new AtomicBoolean();
    Thread worker =
        new Thread(
            () -> {
              disposition.set(p.process(Messages.keyed("order-shutdown", "{}")));
              interruptedAfter.set(Thread.currentThread().isInterrupted());
            },
            "worker-under-test");
    worker.start();
    assertThat(failedOnce.await(30, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> worker.getState() == Thread.State.TIMED_WAITING);
    worker.interrupt();
    worker.join(30_000);

    assertThat(worker.isAlive()).isFalse();
    assertThat(disposition.get()).isInstanceOf(Disposition.NackRetry.class);
    assertThat(interruptedAfter).as("the interrupt is restored for the runtime").isTrue();
    assertThat(count(SigloEvent.DeadLettered.class)).isZero();
    assertThat(store.claim(new ClaimRequest(keyOf("order-shutdown"), null, Duration.ofSeconds(1))))
        .as("the claim was released")
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void anUnreadableStoredRecordIsDeadLetteredAsUnprocessableWithoutRunningTheHandler() {
    OutcomeCodec corrupting =
        new OutcomeCodec() {
          @Override
          public byte[] encode(Outcome outcome) {
            return "{\"kind\":\"garbage\"}".getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public Outcome decode(byte[] bytes) {
            return JsonOutcomeCodec.of().decode(bytes);
          }
        };
    InMemoryIdempotencyStore broken = InMemoryIdempotencyStore.custom().codec(corrupting).build();
    String key = keyOf("order-corrupt");
    ClaimResult.Claimed c =
        (ClaimResult.Claimed) broken.claim(new ClaimRequest(key, null, Duration.ofSeconds(5)));
    broken.complete(key, c.token(), new Outcome.Success("1"), Duration.ofHours(1));
    MessageProcessor p =
        processor(this::charge, b -> b.store(broken).fingerprint(Fingerprints.none()));

    Disposition d = p.process(Messages.keyed("order-corrupt", "{}"));

    assertThat(d).isInstanceOf(Disposition.DeadLetter.class);
    Disposition.DeadLetter dl = (Disposition.DeadLetter) d;
    assertThat(dl.reason()).isEqualTo(DeadLetterReason.UNPROCESSABLE);
    assertThat(dl.errorClass()).isEqualTo(ErrorClass.PERMANENT);
    assertThat(dl.cause()).isInstanceOf(OutcomeEncodingException.class);
    assertThat(effects("order-corrupt")).isZero();
  }
}
