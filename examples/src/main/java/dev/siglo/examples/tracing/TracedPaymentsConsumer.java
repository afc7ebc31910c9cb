package dev.siglo.examples.tracing;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.examples.payments.ChargeOrderHandler;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.examples.payments.ReceiptSender;
import dev.siglo.kafka.SigloKafkaConsumer;
import io.opentelemetry.api.OpenTelemetry;

/** The payments consumer traced with the application's OpenTelemetry; the README shows it. */
public final class TracedPaymentsConsumer {
  private TracedPaymentsConsumer() {}

  /**
   * @param bootstrapServers the Kafka cluster
   * @param openTelemetry the application's OpenTelemetry (the SDK, or the agent's global one)
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   * @return the consumer, not started
   */
  public static SigloKafkaConsumer<Order> build(
      String bootstrapServers,
      OpenTelemetry openTelemetry,
      PaymentGateway gateway,
      ReceiptSender receipts) {
    // README:start tracing
    SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.builder(
                PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
            .bootstrapServers(bootstrapServers)
            .groupId("payments")
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .tracing(openTelemetry) // or .tracing(openTelemetry, true) to link, not parent
            .build();
    // README:end tracing
    return consumer;
  }
}
