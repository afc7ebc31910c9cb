package dev.siglo.examples.shapes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.examples.payments.CardDeclinedException;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.PaymentGateway;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The README's asynchronous handler through the engine: one charge per order, declines cached. */
class AsyncChargeOrderHandlerTest {
  private static final java.util.concurrent.atomic.AtomicLong OFFSETS =
      new java.util.concurrent.atomic.AtomicLong();
  private final ExecutorService gatewayThreads = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    gatewayThreads.shutdownNow();
  }

  private static Message order(String id, String card) {
    String json =
        "{\"orderId\":\""
            + id
            + "\",\"customerId\":\"c\",\"card\":\""
            + card
            + "\",\"amountCents\":500}";
    long offset = OFFSETS.incrementAndGet();
    return Message.builder("orders-0@" + offset, new MessageSource("test", "orders", 0, offset))
        .payload(json.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void eachOrderIsChargedOnceAndADeclineIsCached() {
    PaymentGateway gateway = new PaymentGateway(Set.of("4000-0000"), Set.of());
    MessageProcessor engine =
        MessageProcessor.of(
            MessageProcessorConfig.asyncBuilder(
                    PayloadDecoder.json(Order.class),
                    new AsyncChargeOrderHandler(gateway, gatewayThreads))
                .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
                .classifier(
                    ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
                .build());

    Disposition first = engine.process(order("o-1", "4242-4242"));
    Disposition again = engine.process(order("o-1", "4242-4242"));
    Disposition declined = engine.process(order("o-2", "4000-0000"));
    Disposition declinedAgain = engine.process(order("o-2", "4000-0000"));

    assertThat(first).isInstanceOf(Disposition.Ack.class);
    assertThat(((Disposition.Ack) again).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(declined).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(((Disposition.AckDeclined) declinedAgain).replayed()).isTrue();
    assertThat(gateway.ledger()).hasSize(1);
    assertThat(gateway.calls()).isEqualTo(2);
  }
}
