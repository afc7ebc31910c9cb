package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.InterceptedIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A {@link BatchMessageHandler} in the engine: one {@code claimAll} and one {@code completeAll} per
 * batch; duplicates, keys in progress and poison never reach the handler; each message ends on its
 * own (processed, declined and cached, released and retried, dead-lettered); a failure of the whole
 * batch is applied to each message. Backoffs and settling run on injected time.
 */
class BatchHandlerTest {
  private final InMemoryIdempotencyStore memory = InMemoryIdempotencyStore.of();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final IdempotencyStore store =
      new InterceptedIdempotencyStore(memory) {
        @Override
        protected <R> R intercept(String operation, Supplier<R> call) {
          calls.computeIfAbsent(operation, o -> new AtomicInteger()).incrementAndGet();
          return call.get();
        }

        @Override
        public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
          // the SPI's contract: a batch's keys are distinct (a backend may fail otherwise)
          assertThat(requests).extracting(ClaimRequest::key).doesNotHaveDuplicates();
          return super.claimAll(requests);
        }
      };
  private final ManualTime time = new ManualTime();

  /** The payloads of every batch the handler saw, in order. */
  private final List<List<String>> batches = new CopyOnWriteArrayList<>();

  private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  private MessageProcessorConfig.Builder<String> config(BatchMessageHandler<String> handler) {
    return MessageProcessorConfig.batchBuilder(
            (PayloadDecoder<String>)
                m -> {
                  String s = new String(m.payload(), StandardCharsets.UTF_8);
                  if (s.equals("poison")) {
                    throw new IllegalArgumentException("not a payload");
                  }
                  return s;
                },
            batch -> {
              batches.add(batch.stream().map(BatchItem::value).toList());
              return handler.handle(batch);
            })
        .store(store)
        .time(time);
  }

  private MessageProcessor processor(BatchMessageHandler<String> handler) {
    return MessageProcessor.of(config(handler).build());
  }

  private static List<Disposition> all(MessageProcessor p, Message... messages) {
    return p.processAll(List.of(messages), (i, d) -> d);
  }

  private void effect(String payload) {
    effects.computeIfAbsent(payload, k -> new AtomicInteger()).incrementAndGet();
  }

  private int calls(String operation) {
    AtomicInteger n = calls.get(operation);
    return n == null ? 0 : n.get();
  }

  private static String keyOf(String raw) {
    return IdempotencyKeys.defaults().key(raw);
  }

  private ClaimResult claimNow(String raw) {
    return memory.claim(new ClaimRequest(keyOf(raw), null, IdempotencyConfig.DEFAULT_LEASE));
  }

  private static Disposition.AckReason ackReason(Disposition d) {
    assertThat(d).isInstanceOf(Disposition.Ack.class);
    return ((Disposition.Ack) d).reason();
  }

  @Test
  void aBatchIsClaimedInOneCallHandledOnceAndCompletedInOneCall() {
    MessageProcessor p =
        processor(
            batch -> {
              BatchResult.Builder r = BatchResult.builder();
              for (BatchItem<String> item : batch) {
                effect(item.value());
                r.success(item, "done-" + item.value());
              }
              return r.build();
            });

    List<Disposition> ds =
        all(
            p,
            Messages.keyed("k1", "a"),
            Messages.keyed("k2", "b"),
            Messages.keyed("k3", "c"),
            Messages.keyed("k4", "d"));

    assertThat(ds)
        .allSatisfy(d -> assertThat(ackReason(d)).isEqualTo(Disposition.AckReason.PROCESSED));
    assertThat(batches).containsExactly(List.of("a", "b", "c", "d"));
    assertThat(calls("claimAll")).isEqualTo(1);
    assertThat(calls("completeAll")).isEqualTo(1);
    assertThat(calls("claim")).isZero();
    assertThat(calls("complete")).isZero();
    assertThat(((Disposition.Ack) ds.get(2)).outcome().resultJson()).isEqualTo("\"done-c\"");
    assertThat(memory.getResult(keyOf("k3"))).contains(new Outcome.Success("\"done-c\""));
  }

  @Test
  void duplicatesKeysInProgressAndASecondMessageOfAKeyNeverReachTheHandler() {
    MessageProcessor p =
        processor(
            batch -> {
              batch.forEach(item -> effect(item.value()));
              return BatchResult.allSucceeded();
            });
    all(p, Messages.keyed("done", "first"));
    batches.clear();
    ClaimResult.Claimed elsewhere = (ClaimResult.Claimed) claimNow("busy");
    // the other holder completes while the batch settles (after its first poll)
    time.afterSleep(
        elapsed ->
            memory.complete(
                keyOf("busy"),
                elsewhere.token(),
                new Outcome.Success("\"theirs\""),
                Duration.ofHours(1)));

    List<Disposition> ds =
        all(
            p,
            Messages.keyed("done", "again"),
            Messages.keyed("busy", "mine"),
            Messages.keyed("fresh", "one"),
            Messages.keyed("fresh", "two"));

    assertThat(batches).containsExactly(List.of("one"));
    assertThat(ds)
        .extracting(BatchHandlerTest::ackReason)
        .containsExactly(
            Disposition.AckReason.DUPLICATE,
            Disposition.AckReason.DUPLICATE,
            Disposition.AckReason.PROCESSED,
            Disposition.AckReason.DUPLICATE);
    assertThat(((Disposition.Ack) ds.get(1)).outcome().resultJson()).isEqualTo("\"theirs\"");
    assertThat(effects.keySet()).containsExactlyInAnyOrder("first", "one");
  }

  @Test
  void eachMessageEndsOnItsOwnAndOnlyTheTransientOneIsHandedOverAgain() {
    AtomicInteger flaky = new AtomicInteger();
    MessageProcessor p =
        processor(
            batch -> {
              BatchResult.Builder r = BatchResult.builder();
              for (BatchItem<String> item : batch) {
                switch (item.value()) {
                  case "decline" -> r.failure(item, new PermanentException("card declined"));
                  case "flaky" -> {
                    if (flaky.incrementAndGet() == 1) {
                      r.failure(item, new IOException("gateway timeout"));
                    } else {
                      effect(item.value());
                      r.success(item, "ok");
                    }
                  }
                  default -> {
                    effect(item.value());
                    r.success(item, "ok");
                  }
                }
              }
              return r.build();
            });

    List<Disposition> ds =
        all(
            p,
            Messages.keyed("a", "fine"),
            Messages.keyed("b", "decline"),
            Messages.keyed("c", "flaky"),
            Messages.keyed("d", "poison"),
            Messages.unkeyed("no key"));

    assertThat(batches).containsExactly(List.of("fine", "decline", "flaky"), List.of("flaky"));
    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(ds.get(1)).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(ackReason(ds.get(2))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(((Disposition.DeadLetter) ds.get(3)).reason())
        .isEqualTo(DeadLetterReason.POISON_PAYLOAD);
    assertThat(((Disposition.DeadLetter) ds.get(4)).reason())
        .isEqualTo(DeadLetterReason.MISSING_KEY);
    assertThat(effects).containsOnlyKeys("fine", "flaky");
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(time.sleeps()).as("one retry backoff").hasSize(1);

    batches.clear();
    List<Disposition> again = all(p, Messages.keyed("b", "decline"), Messages.keyed("a", "fine"));
    assertThat(batches).as("the decline is replayed from the store").isEmpty();
    assertThat(((Disposition.AckDeclined) again.get(0)).replayed()).isTrue();
    assertThat(ackReason(again.get(1))).isEqualTo(Disposition.AckReason.DUPLICATE);
  }

  @Test
  void aMessageFailingEveryAttemptIsReleasedAndNackedWhileTheOthersComplete() {
    MessageProcessor p =
        processor(
            batch -> {
              BatchResult.Builder r = BatchResult.builder();
              for (BatchItem<String> item : batch) {
                if (item.value().equals("down")) {
                  r.failure(item, new TransientException("still down"));
                } else {
                  effect(item.value());
                }
              }
              return r.build();
            });

    List<Disposition> ds = all(p, Messages.keyed("x", "up"), Messages.keyed("y", "down"));

    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.PROCESSED);
    Disposition.NackRetry nack = (Disposition.NackRetry) ds.get(1);
    assertThat(nack.counted()).isTrue();
    assertThat(nack.attempts()).isEqualTo(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(batches).containsExactly(List.of("up", "down"), List.of("down"), List.of("down"));
    assertThat(claimNow("y")).as("the claim was released").isInstanceOf(ClaimResult.Claimed.class);
    assertThat(effects).containsOnlyKeys("up");
  }

  @Test
  void onItsLastDeliveryAMessageFailingTransientlyIsDeadLetteredAlone() {
    MessageProcessor p =
        processor(
            batch -> {
              BatchResult.Builder r = BatchResult.builder();
              for (BatchItem<String> item : batch) {
                if (item.value().equals("down")) {
                  r.failure(item, new TransientException("still down"));
                }
              }
              return r.build();
            });

    List<Disposition> ds =
        all(
            p,
            Messages.keyed("x", "up", RetryConfig.DEFAULT_MAX_DELIVERIES),
            Messages.keyed("y", "down", RetryConfig.DEFAULT_MAX_DELIVERIES));

    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(((Disposition.DeadLetter) ds.get(1)).reason())
        .isEqualTo(DeadLetterReason.RETRIES_EXHAUSTED);
  }

  @Test
  void anExceptionOfTheWholeBatchIsClassifiedAndAppliedToEachMessage() {
    MessageProcessor declining =
        processor(
            batch -> {
              throw new PermanentException("bulk API rejected the batch");
            });
    List<Disposition> declined =
        all(declining, Messages.keyed("p1", "a"), Messages.keyed("p2", "b"));
    assertThat(declined).allSatisfy(d -> assertThat(d).isInstanceOf(Disposition.AckDeclined.class));
    assertThat(memory.getResult(keyOf("p1"))).get().isInstanceOf(Outcome.Declined.class);
    assertThat(memory.getResult(keyOf("p2"))).get().isInstanceOf(Outcome.Declined.class);

    batches.clear();
    MessageProcessor failing =
        processor(
            batch -> {
              throw new IOException("bulk API unreachable");
            });
    List<Disposition> retried = all(failing, Messages.keyed("t1", "a"), Messages.keyed("t2", "b"));
    assertThat(retried).allSatisfy(d -> assertThat(d).isInstanceOf(Disposition.NackRetry.class));
    assertThat(batches).hasSize(RetryConfig.DEFAULT_MAX_ATTEMPTS).allMatch(b -> b.size() == 2);
    assertThat(claimNow("t1")).isInstanceOf(ClaimResult.Claimed.class);
    assertThat(claimNow("t2")).isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aFailingHookFailsOnlyItsOwnMessage() {
    MessageProcessor p =
        MessageProcessor.of(
            config(
                    batch -> {
                      batch.forEach(item -> effect(item.value()));
                      return BatchResult.allSucceeded();
                    })
                .onAfter(
                    (message, result) -> {
                      if (new String(message.payload(), StandardCharsets.UTF_8).equals("bad")) {
                        throw new PermanentException("receipt refused");
                      }
                    })
                .build());

    List<Disposition> ds = all(p, Messages.keyed("h1", "good"), Messages.keyed("h2", "bad"));

    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(ds.get(1)).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(memory.getResult(keyOf("h2"))).get().isInstanceOf(Outcome.Declined.class);
  }

  @Test
  void aRetriedMessagesCompletedStepIsReplayedNotRunAgain() {
    AtomicInteger charges = new AtomicInteger();
    AtomicInteger receipts = new AtomicInteger();
    Step<String, String> charge =
        Step.of(
                "charge",
                String.class,
                (String in) -> {
                  charges.incrementAndGet();
                  return "charged " + in;
                })
            .idempotent(in -> "charge");
    MessageProcessor p =
        processor(
            batch -> {
              BatchResult.Builder r = BatchResult.builder();
              for (BatchItem<String> item : batch) {
                String charged = item.context().run(charge, item.value());
                if (receipts.incrementAndGet() == 1) {
                  r.failure(item, new IOException("mail server down"));
                } else {
                  r.success(item, charged);
                }
              }
              return r.build();
            });

    List<Disposition> ds = all(p, Messages.keyed("s1", "order-1"));

    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(charges).hasValue(1);
    assertThat(receipts).hasValue(2);
  }

  @Test
  void aResultReportingAnItemOfAnotherBatchFailsTheBatchTransiently() {
    List<BatchItem<String>> first = new ArrayList<>();
    MessageProcessor p =
        processor(
            batch -> {
              if (first.isEmpty()) {
                first.addAll(batch);
                return BatchResult.allSucceeded();
              }
              return BatchResult.builder().success(first.get(0), "stale").build();
            });
    all(p, Messages.keyed("r1", "a"));

    List<Disposition> ds = all(p, Messages.keyed("r2", "b"));

    assertThat(ds.get(0)).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) ds.get(0)).cause())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not in the batch");
  }

  @Test
  void aStoreOutageOnTheClaimSpendsNoDeliveryAndRunsNothing() {
    RecordingStore down = new RecordingStore();
    down.failNextClaims.set(1);
    MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.batchBuilder(
                    PayloadDecoder.utf8(),
                    (BatchMessageHandler<String>)
                        batch -> {
                          batches.add(List.of("ran"));
                          return BatchResult.allSucceeded();
                        })
                .store(down)
                .time(time)
                .build());

    List<Disposition> ds = all(p, Messages.keyed("o1", "a"), Messages.keyed("o2", "b"));

    assertThat(ds)
        .allSatisfy(
            d -> {
              assertThat(d).isInstanceOf(Disposition.NackRetry.class);
              assertThat(((Disposition.NackRetry) d).counted()).isFalse();
            });
    assertThat(batches).isEmpty();
    p.close();
  }

  @Test
  void messagesWithoutAKeyRunInTheBatchWhenThePolicyAllowsIt() {
    MessageProcessor p =
        MessageProcessor.of(
            config(
                    batch -> {
                      batch.forEach(item -> effect(item.value()));
                      return BatchResult.allSucceeded();
                    })
                .missingKeyPolicy(MissingKeyPolicy.PROCESS_WITHOUT_IDEMPOTENCY)
                .build());

    List<Disposition> ds = all(p, Messages.unkeyed("u"), Messages.keyed("k", "v"));

    assertThat(ackReason(ds.get(0))).isEqualTo(Disposition.AckReason.UNKEYED);
    assertThat(ackReason(ds.get(1))).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(batches).containsExactly(List.of("u", "v"));
  }

  @Test
  void aMessageTakenOverFromADeadHolderRunsAloneInItsOwnCall() {
    TestClock clock = new TestClock();
    InMemoryIdempotencyStore withClock = InMemoryIdempotencyStore.custom().clock(clock).build();
    withClock.claim(new ClaimRequest(keyOf("crashed"), null, Duration.ofSeconds(30)));
    clock.advance(Duration.ofMinutes(1)); // its holder died: the lease ran out
    MessageProcessor p =
        MessageProcessor.of(
            config(
                    batch -> {
                      batch.forEach(item -> effect(item.value()));
                      return BatchResult.allSucceeded();
                    })
                .store(withClock)
                .build());

    List<Disposition> ds =
        all(p, Messages.keyed("crashed", "suspect"), Messages.keyed("other", "innocent"));

    assertThat(batches).containsExactly(List.of("innocent"), List.of("suspect"));
    assertThat(ds)
        .extracting(BatchHandlerTest::ackReason)
        .containsOnly(Disposition.AckReason.PROCESSED);
  }

  @Test
  void processRunsOneMessageAsABatchOfOne() {
    MessageProcessor p =
        processor(
            batch ->
                BatchResult.builder()
                    .failure(batch.get(0), new PermanentException("declined alone"))
                    .build());

    Disposition d = p.process(Messages.keyed("one", "x"));

    assertThat(d).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(batches).containsExactly(List.of("x"));
  }
}
