package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.support.ManualTime;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Decoder failures are classified: malformed payloads are poison, a decoder whose own dependency
 * fails (a schema registry, say) is retried like any transient failure. Default retry settings on
 * injected time.
 */
class DecodeFailureTest {
  private final AtomicInteger decodes = new AtomicInteger();
  private final AtomicInteger handled = new AtomicInteger();

  private <T> MessageProcessor processor(PayloadDecoder<T> decoder) {
    return MessageProcessor.of(
        MessageProcessorConfig.<T>builder(
                decoder,
                (value, ctx) -> {
                  handled.incrementAndGet();
                  return "ok";
                })
            .time(new ManualTime())
            .build());
  }

  /** Fails with an I/O error until {@code failures} calls have failed, then decodes. */
  private PayloadDecoder<String> registryDown(int failures) {
    return m -> {
      if (decodes.incrementAndGet() <= failures) {
        throw new IOException("schema registry unavailable");
      }
      return "decoded";
    };
  }

  private static DeadLetterReason deadLetterReason(Disposition d) {
    assertThat(d).isInstanceOf(Disposition.DeadLetter.class);
    return ((Disposition.DeadLetter) d).reason();
  }

  @Test
  void aDecoderFailingTransientlyIsRetriedInProcessAndTheMessageRunsOnce() {
    Disposition d =
        processor(registryDown(RetryConfig.DEFAULT_MAX_ATTEMPTS - 1))
            .process(Messages.keyed("order-1", "{}"));

    assertThat(d).isInstanceOf(Disposition.Ack.class);
    assertThat(decodes).hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(handled).hasValue(1);
  }

  @Test
  void aDecoderFailingTransientlyOnEveryAttemptIsNackedNotDeadLettered() {
    Disposition d = processor(registryDown(100)).process(Messages.keyed("order-1", "{}"));

    assertThat(d).isInstanceOf(Disposition.NackRetry.class);
    assertThat(decodes).hasValue(RetryConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(handled).hasValue(0);
  }

  @Test
  void malformedJsonStaysPoisonThoughJacksonReportsItAsAnIoException() {
    Disposition d =
        processor(PayloadDecoder.json(new TypeReference<Map<String, Object>>() {}))
            .process(Messages.keyed("order-1", "not json"));

    assertThat(deadLetterReason(d)).isEqualTo(DeadLetterReason.POISON_PAYLOAD);
    assertThat(handled).hasValue(0);
  }

  @Test
  void bytesThatAreNotUtf8StayPoison() {
    Disposition d =
        processor(PayloadDecoder.utf8())
            .process(
                dev.siglo.consumer.Message.builder(
                        "m-1", dev.siglo.consumer.MessageSource.of("test", "orders"))
                    .header("idempotency-key", "order-1")
                    .payload(new byte[] {(byte) 0xC3, (byte) 0x28})
                    .build());

    assertThat(deadLetterReason(d)).isEqualTo(DeadLetterReason.POISON_PAYLOAD);
  }

  @Test
  void aDecoderExceptionNoRuleKnowsStaysPoison() {
    Disposition d =
        processor(
                (PayloadDecoder<String>)
                    m -> {
                      throw new IllegalStateException("unexpected field");
                    })
            .process(Messages.keyed("order-1", "{}"));

    assertThat(deadLetterReason(d)).isEqualTo(DeadLetterReason.POISON_PAYLOAD);
  }
}
