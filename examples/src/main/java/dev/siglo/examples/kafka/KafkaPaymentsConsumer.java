package dev.siglo.examples.kafka;

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
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.util.concurrent.CompletableFuture;

/** The payments handler on Kafka; the README shows the body of {@link #start}. */
public final class KafkaPaymentsConsumer {
  private KafkaPaymentsConsumer() {}

  /**
   * @param bootstrapServers the Kafka cluster
   * @param store the idempotency store shared by every instance of the consumer
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   * @return the running consumer
   */
  public static SigloKafkaConsumer<Order> start(
      String bootstrapServers,
      IdempotencyStore store,
      PaymentGateway gateway,
      ReceiptSender receipts) {
    // README:start kafka-consumer
    SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.builder(
                PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
            .bootstrapServers(bootstrapServers)
            .groupId("payments")
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store)
            .classifier(ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
            .retry(RetryConfig.custom().maxAttempts(3).maxDeliveries(5).build())
            .ordering(Ordering.KEY) // one record per key at a time, keys in parallel
            .concurrency(32) // independent of the partition count
            .deadLetterDeclines(true) // also copy declines to orders-dlt
            .shutdownHook(true)
            .build();
    CompletableFuture<Void> stopped = consumer.start(); // fails if a fatal error stops it
    // README:end kafka-consumer
    return consumer;
  }
}
