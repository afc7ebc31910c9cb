package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine's waits (settle polls, in-process retry backoff, completion retries) at the settings a
 * user gets by default, on injected time: seconds of waiting checked in milliseconds.
 */
class InjectedTimeTest {
  private final RecordingStore store = new RecordingStore();
  private final ManualTime time = new ManualTime();
  private final AtomicInteger calls = new AtomicInteger();

  private MessageProcessor processor(MessageHandler<String> handler) {
    return MessageProcessor.of(
        MessageProcessorConfig.builder(PayloadDecoder.utf8(), handler)
            .store(store)
            .time(time)
            .build());
  }

  private static String keyOf(String raw) {
    return IdempotencyKeys.defaults().key(raw);
  }

  /** Another execution holds the key, as a consumer elsewhere would. */
  private ClaimToken holdElsewhere(String raw) {
    ClaimResult claim =
        store.claim(new ClaimRequest(keyOf(raw), null, IdempotencyConfig.DEFAULT_LEASE));
    return ((ClaimResult.Claimed) claim).token();
  }

  @Test
  void aDuplicateThatNeverSettlesWaitsExactlyTheDefaultSettleTimeoutThenConflicts() {
    holdElsewhere("order-held");
    MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.<String>builder(PayloadDecoder.utf8(), (payload, ctx) -> "x")
                .store(store)
                .time(time)
                .retry(RetryConfig.custom().maxAttempts(1).build())
                .build());

    Disposition d = p.process(Messages.keyed("order-held", "{}"));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(((Disposition.NackRetry) d).cause())
        .isInstanceOf(IdempotencyConflictException.class);
    assertThat(time.slept()).isEqualTo(IdempotencyConfig.DEFAULT_SETTLE_TIMEOUT);
    assertThat(time.sleeps().subList(0, 6))
        .as("polls start at 2 ms and double up to the poll interval")
        .containsExactly(
            Duration.ofMillis(2),
            Duration.ofMillis(4),
            Duration.ofMillis(8),
            Duration.ofMillis(16),
            Duration.ofMillis(32),
            IdempotencyConfig.DEFAULT_POLL_INTERVAL);
  }

  @Test
  void aDuplicateSettlesOnTheHoldersOutcomeWhenItCompletesThreeSecondsLater() {
    ClaimToken holder = holdElsewhere("order-late");
    Outcome.Success result = new Outcome.Success("\"charged\"");
    time.afterSleep(
        elapsed -> {
          if (elapsed >= Duration.ofSeconds(3).toNanos()
              && store.getResult(keyOf("order-late")).isEmpty()) {
            store.complete(keyOf("order-late"), holder, result, Duration.ofHours(1));
          }
        });
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              return "again";
            });

    Disposition d = p.process(Messages.keyed("order-late", "{}"));

    assertThat(d).isEqualTo(new Disposition.Ack(Disposition.AckReason.DUPLICATE, result));
    assertThat(calls).hasValue(0);
    assertThat(time.slept())
        .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(3).plus(Duration.ofMillis(50)));
  }

  @Test
  void transientFailuresAreRetriedInProcessAtTheDefaultJitteredBackoff() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              if (calls.incrementAndGet() < RetryConfig.DEFAULT_MAX_ATTEMPTS) {
                throw new IOException("connection reset");
              }
              return "ok";
            });

    Disposition d = p.process(Messages.keyed("order-flaky", "{}"));

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(calls).hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    List<Duration> sleeps = time.sleeps();
    assertThat(sleeps).hasSize(RetryConfig.DEFAULT_MAX_ATTEMPTS - 1);
    Duration first = RetryConfig.DEFAULT_INITIAL_BACKOFF;
    assertThat(sleeps.get(0))
        .isBetween(first.dividedBy(2), first.plus(first.dividedBy(2)))
        .as("jitter 0.5 around 100 ms");
    Duration second = first.multipliedBy(2);
    assertThat(sleeps.get(1)).isBetween(second.dividedBy(2), second.plus(second.dividedBy(2)));
  }

  @Test
  void aTransientFailureOnEveryAttemptIsNackedAfterTheDefaultAttemptsWithoutMoreSleeping() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              throw new IOException("connection reset");
            });

    Disposition d = p.process(Messages.keyed("order-down", "{}"));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(calls).hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(time.sleeps()).hasSize(RetryConfig.DEFAULT_MAX_ATTEMPTS - 1);
  }

  @Test
  void aStoreOutageOnCompleteIsRetriedWithDoublingWaitsAndTheHandlerRunsOnce() {
    store.failNextCompletes.set(3);
    // between tries the completion waits for the gate's probe: let its first one come due
    time.afterSleep(elapsed -> time.advance(StoreGate.FIRST_PROBE));
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              return "charged";
            });

    Message m = Messages.keyed("order-complete-outage", "{}");
    Disposition d = p.process(m);

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(calls).hasValue(1);
    assertThat(time.sleeps())
        .containsExactly(Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40));
  }

  @Test
  void anInterruptDuringTheBackoffNacksAtOnce() {
    MessageProcessor p =
        processor(
            (payload, ctx) -> {
              calls.incrementAndGet();
              Thread.currentThread().interrupt(); // the consumer is closing
              throw new IOException("connection reset");
            });

    Disposition d;
    try {
      d = p.process(Messages.keyed("order-closing", "{}"));
    } finally {
      Thread.interrupted();
    }

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(calls).hasValue(1);
    assertThat(time.sleeps()).isEmpty();
  }
}
