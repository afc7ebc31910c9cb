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
import dev.siglo.kafka.SigloKafkaShareConsumer;
import java.util.concurrent.CompletableFuture;

/** The payments handler on a Kafka share group; the README shows the body of {@link #start}. */
public final class ShareGroupPaymentsConsumer {
  private ShareGroupPaymentsConsumer() {}

  /**
   * @param bootstrapServers the Kafka cluster
   * @param store the idempotency store shared by every member of the share group
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   * @return the running consumer
   */
  public static SigloKafkaShareConsumer<Order> start(
      String bootstrapServers,
      IdempotencyStore store,
      PaymentGateway gateway,
      ReceiptSender receipts) {
    // README:start kafka-share-consumer
    SigloKafkaShareConsumer<Order> consumer =
        SigloKafkaShareConsumer.builder(
                PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
            .bootstrapServers(bootstrapServers)
            .groupId("payments") // a share group: every member reads every partition
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store)
            .classifier(ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
            .retry(
                RetryConfig.custom().maxAttempts(3).maxDeliveries(5).build()) // ≤ the group's limit
            .concurrency(32) // records of one partition in parallel
            .shutdownHook(true)
            .build();
    CompletableFuture<Void> stopped = consumer.start(); // fails if a fatal error stops it
    // README:end kafka-share-consumer
    return consumer;
  }
}
