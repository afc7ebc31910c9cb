package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stored record Siglo cannot read is its own bookkeeping failure, not the message's: the message
 * is dead-lettered as unprocessable, no decline is cached, and it runs once the record is repaired.
 */
class UnreadableRecordTest {
  private static final IdempotencyKeys KEYS = IdempotencyKeys.defaults();
  private static final String MESSAGE_KEY = KEYS.key("order-1");
  private static final String STEP_KEY = KEYS.scoped(MESSAGE_KEY, "charge", "charge:o-1");

  private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
  private final AtomicInteger charges = new AtomicInteger();
  private final Step<String, Integer> charge =
      Step.of(
              "charge",
              Integer.class,
              (String order) -> {
                charges.incrementAndGet();
                return 42;
              })
          .idempotent(order -> "charge:" + order, IdempotencyConfig.defaults());
  private final MessageProcessor processor =
      MessageProcessor.of(
          MessageProcessorConfig.<String>builder(
                  PayloadDecoder.utf8(), (payload, ctx) -> ctx.run(charge, "o-1"))
              .store(store)
              .build());

  private void storeStepResult(String json) {
    ClaimResult claim = store.claim(new ClaimRequest(STEP_KEY, null, Duration.ofMinutes(1)));
    store.complete(
        STEP_KEY,
        ((ClaimResult.Claimed) claim).token(),
        new Outcome.Success(json),
        Duration.ofHours(1));
  }

  @Test
  void aStepRecordThatCannotBeReadDeadLettersTheMessageWithoutCachingADecline() {
    storeStepResult("\"forty-two\"");
    Message m = Messages.keyed("order-1", "{}");

    Disposition d = processor.process(m);

    assertThat(d)
        .isInstanceOfSatisfying(
            Disposition.DeadLetter.class,
            dl -> assertThat(dl.reason()).isEqualTo(DeadLetterReason.UNPROCESSABLE));
    assertThat(store.getResult(MESSAGE_KEY)).as("no decline cached for the message").isEmpty();
    assertThat(charges).hasValue(0);

    store.clear();
    storeStepResult("42");
    Disposition redelivered = processor.process(Messages.redelivery(m));

    assertThat(redelivered)
        .isEqualTo(new Disposition.Ack(Disposition.AckReason.PROCESSED, new Outcome.Success("42")));
    assertThat(charges).as("the repaired record is replayed, not re-run").hasValue(0);
  }
}
