package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.key.Fingerprints;
import dev.siglo.consumer.key.KeyExtractors;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * What the Kafka and SQS builders share: every engine setting a runtime user needs reaches the
 * engine, checked through {@link ConsumerBuilder} itself.
 */
class ConsumerBuilderTest {
  /** A runtime builder as the Kafka and SQS ones are, minus the broker. */
  private static final class RuntimeBuilder extends ConsumerBuilder<String, RuntimeBuilder> {
    RuntimeBuilder(MessageHandler<? super String> handler) {
      super(PayloadDecoder.utf8(), handler, KeyExtractors.header("idempotency-key"));
    }

    @Override
    protected RuntimeBuilder self() {
      return this;
    }

    MessageProcessor build() {
      return processor();
    }
  }

  /** A charge with a camel-case field, to see which mapper stored it. */
  record Charge(String chargeId) {}

  private final List<String> calls = new CopyOnWriteArrayList<>();

  private static Message message(String key, String payload) {
    return Message.builder("m-" + payload.hashCode(), MessageSource.of("test", "orders"))
        .header("idempotency-key", key)
        .payload(payload.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void onAfterHooksRunBeforeTheOutcomeIsRecordedAndAFailingHookFailsTheMessage() {
    MessageProcessor p =
        new RuntimeBuilder(
                (payload, ctx) -> {
                  calls.add("handler");
                  return "ok";
                })
            .onAfter(
                (message, result) -> {
                  calls.add("hook:" + result);
                  throw new PermanentException("ledger rejected the entry");
                })
            .build();

    Disposition d = p.process(message("order-1", "{}"));

    assertThat(calls).containsExactly("handler", "hook:ok");
    assertThat(d).isInstanceOf(Disposition.AckDeclined.class);
  }

  @Test
  void theFingerprintFunctionDecidesWhatARedeliveryMustMatch() {
    MessageProcessor wholePayload =
        new RuntimeBuilder((payload, ctx) -> "ok")
            .fingerprint(Fingerprints.payloadSha256())
            .build();
    MessageProcessor byOrderId =
        new RuntimeBuilder((payload, ctx) -> "ok")
            .fingerprint(Fingerprints.jsonFields("/orderId"))
            .build();

    wholePayload.process(message("order-a", "{\"orderId\":1,\"sentAt\":1}"));
    byOrderId.process(message("order-b", "{\"orderId\":1,\"sentAt\":1}"));

    assertThat(wholePayload.process(message("order-a", "{\"orderId\":1,\"sentAt\":2}")))
        .isInstanceOfSatisfying(
            Disposition.DeadLetter.class,
            dl -> assertThat(dl.reason()).isEqualTo(DeadLetterReason.KEY_REUSE));
    assertThat(byOrderId.process(message("order-b", "{\"orderId\":1,\"sentAt\":2}")))
        .isInstanceOfSatisfying(
            Disposition.Ack.class,
            ack -> assertThat(ack.reason()).isEqualTo(Disposition.AckReason.DUPLICATE));
  }

  @Test
  void theResultMapperStoresResults() {
    MessageProcessor p =
        new RuntimeBuilder((payload, ctx) -> new Charge("ch-1"))
            .resultMapper(
                new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE))
            .build();

    Disposition d = p.process(message("order-1", "{}"));

    assertThat(((Disposition.Ack) d).outcome().resultJson()).isEqualTo("{\"charge_id\":\"ch-1\"}");
  }
}
