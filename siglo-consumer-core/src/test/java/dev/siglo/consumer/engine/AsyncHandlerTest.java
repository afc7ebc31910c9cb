package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@link AsyncMessageHandler} in the engine: the claim is held until the stage completes, and
 * the stage's value or failure is the handler's; a stage past the default async timeout fails
 * transiently (on injected time).
 */
class AsyncHandlerTest {
  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
  private final ManualTime time = new ManualTime();
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final AtomicInteger calls = new AtomicInteger();

  @AfterEach
  void stop() {
    callers.shutdownNow();
  }

  private MessageProcessor processor(AsyncMessageHandler<String> handler) {
    return MessageProcessor.of(
        MessageProcessorConfig.asyncBuilder(PayloadDecoder.utf8(), handler)
            .store(store)
            .time(time)
            .build());
  }

  private static String keyOf(String raw) {
    return IdempotencyKeys.defaults().key(raw);
  }

  private ClaimResult claimNow(String raw) {
    return store.claim(new ClaimRequest(keyOf(raw), null, IdempotencyConfig.DEFAULT_LEASE));
  }

  @Test
  void theClaimIsHeldUntilTheStageCompletesThenItsValueIsRecordedAndReplayed() throws Exception {
    CompletableFuture<String> stage = new CompletableFuture<>();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              return stage;
            });

    Future<Disposition> running = callers.submit(() -> p.process(Messages.keyed("a-1", "{}")));
    await().until(() -> calls.get() == 1);
    assertThat(claimNow("a-1"))
        .as("the key stays claimed while the stage is incomplete")
        .isInstanceOf(ClaimResult.InProgress.class);
    assertThat(running).isNotDone();

    stage.complete("charged");
    Disposition d = running.get(10, TimeUnit.SECONDS);

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(((Disposition.Ack) d).reason()).isEqualTo(Disposition.AckReason.PROCESSED);
    Disposition again = p.process(Messages.keyed("a-1", "{}"));
    assertThat(((Disposition.Ack) again).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(((Disposition.Ack) again).outcome().resultJson()).isEqualTo("\"charged\"");
    assertThat(calls).hasValue(1);
  }

  @Test
  void aStageFailingPermanentlyIsACachedDecline() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              return CompletableFuture.supplyAsync(
                  () -> {
                    throw new PermanentException("card declined");
                  },
                  callers);
            });

    Disposition d = p.process(Messages.keyed("a-2", "{}"));
    Disposition again = p.process(Messages.keyed("a-2", "{}"));

    assertThat(d).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(((Disposition.AckDeclined) d).decline().errorType())
        .isEqualTo(PermanentException.class.getName());
    assertThat(((Disposition.AckDeclined) again).replayed()).isTrue();
    assertThat(calls).hasValue(1);
  }

  @Test
  void aStageFailingTransientlyThroughACompositionReleasesTheClaimWithItsOwnCause() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              return CompletableFuture.completedFuture(payload)
                  .thenApplyAsync(
                      v -> {
                        throw new java.io.UncheckedIOException(new IOException("connection reset"));
                      },
                      callers);
            });

    Disposition d = p.process(Messages.keyed("a-3", "{}"));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) d).cause())
        .as("unwrapped from the CompletionException the composition added")
        .isInstanceOf(java.io.UncheckedIOException.class);
    assertThat(calls).hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(claimNow("a-3")).as("released").isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aStageThatNeverCompletesFailsTransientlyAfterTheDefaultTimeoutAndIsCancelled()
      throws Exception {
    BlockingQueue<CompletableFuture<Object>> stages = new LinkedBlockingQueue<>();
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              CompletableFuture<Object> never = new CompletableFuture<>();
              stages.add(never);
              return never;
            });

    Future<Disposition> running = callers.submit(() -> p.process(Messages.keyed("a-4", "{}")));
    for (int attempt = 1; attempt <= RetryConfig.DEFAULT_MAX_ATTEMPTS; attempt++) {
      CompletableFuture<Object> stage = stages.poll(10, TimeUnit.SECONDS);
      assertThat(stage).as("attempt %d started", attempt).isNotNull();
      time.advance(MessageProcessorConfig.DEFAULT_ASYNC_TIMEOUT.minusMillis(1));
      assertThat(stage.isDone()).as("not cancelled before the timeout").isFalse();
      time.advance(java.time.Duration.ofMillis(1));
      await().until(stage::isCancelled);
    }
    Disposition d = running.get(10, TimeUnit.SECONDS);

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) d).cause())
        .isInstanceOf(TransientException.class)
        .hasMessageContaining("asyncTimeout");
    assertThat(claimNow("a-4")).as("released").isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aStepRunsInsideTheStageOnceAndFailsAfterTheStageCompleted() {
    AtomicInteger charges = new AtomicInteger();
    AtomicReference<HandlerContext> kept = new AtomicReference<>();
    Step<String, String> charge =
        Step.of("charge", String.class, in -> "charge-" + charges.incrementAndGet());
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              kept.set(ctx);
              return CompletableFuture.supplyAsync(
                  () -> {
                    try {
                      return ctx.run(charge, payload);
                    } catch (Exception e) {
                      throw new java.util.concurrent.CompletionException(e);
                    }
                  },
                  callers);
            });

    Disposition d = p.process(Messages.keyed("a-5", "{}"));

    assertThat(((Disposition.Ack) d).outcome()).isEqualTo(new Outcome.Success("\"charge-1\""));
    assertThat(charges).hasValue(1);
    assertThatThrownBy(() -> kept.get().run(charge, "late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ran after its handler finished");
    assertThat(charges).hasValue(1);
  }
}
