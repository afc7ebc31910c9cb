package dev.siglo.examples.sqs;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.examples.payments.CardDeclinedException;
import dev.siglo.examples.payments.ChargeOrderHandler;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.examples.payments.ReceiptSender;
import dev.siglo.sqs.SigloSqsConsumer;
import java.time.Duration;
import software.amazon.awssdk.services.sqs.SqsClient;

/** The same payments handler on SQS; the README shows the body of {@link #start}. */
public final class SqsPaymentsConsumer {
  private SqsPaymentsConsumer() {}

  /**
   * @param sqs the AWS SDK v2 client
   * @param store the idempotency store shared by every instance of the consumer
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   * @return the running consumer
   */
  public static SigloSqsConsumer<Order> start(
      SqsClient sqs, IdempotencyStore store, PaymentGateway gateway, ReceiptSender receipts) {
    // README:start sqs-consumer
    SigloSqsConsumer<Order> consumer =
        SigloSqsConsumer.builder(
                PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
            .client(sqs)
            .queueName("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store)
            .classifier(ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
            .retry(RetryConfig.custom().maxAttempts(3).maxDeliveries(5).build())
            .threads(2, 32, 64) // pollers, workers, messages held at most
            .heartbeat(Duration.ofSeconds(30), 0.5) // extend visibility past half of it
            .deadLetterQueue("https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq", true)
            .build();
    consumer.start(); // the returned future fails if a fatal error stops the consumer
    // README:end sqs-consumer
    return consumer;
  }
}
