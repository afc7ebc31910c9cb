package dev.siglo.examples.shapes;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.examples.payments.CardDeclinedException;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The asynchronous payments handler on Kafka, the blocking one on virtual threads, and the ledger's
 * batch handler; the README shows the bodies of {@link #async}, {@link #virtualThreads} and {@link
 * #batch}.
 */
public final class AsyncPaymentsConsumer {
  private AsyncPaymentsConsumer() {}

  /**
   * @param bootstrapServers the Kafka cluster
   * @param store the idempotency store
   * @param gateway the payment gateway
   * @param gatewayThreads where the gateway calls run
   * @return the consumer, not started
   */
  public static SigloKafkaConsumer<Order> async(
      String bootstrapServers,
      IdempotencyStore store,
      PaymentGateway gateway,
      Executor gatewayThreads) {
    // README:start async-consumer
    SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.asyncBuilder(
                PayloadDecoder.json(Order.class),
                new AsyncChargeOrderHandler(gateway, gatewayThreads))
            .bootstrapServers(bootstrapServers)
            .groupId("payments")
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store)
            .classifier(ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
            .ordering(Ordering.KEY) // an order's next record starts once this stage completed
            .asyncTimeout(Duration.ofSeconds(30)) // a stage still running then fails transiently
            .build();
    // README:end async-consumer
    return consumer;
  }

  /**
   * @param bootstrapServers the Kafka cluster
   * @param store the idempotency store
   * @param handler a blocking handler
   * @return the consumer, not started
   */
  public static SigloKafkaConsumer<Order> virtualThreads(
      String bootstrapServers,
      IdempotencyStore store,
      dev.siglo.consumer.MessageHandler<Order> handler) {
    // README:start virtual-threads
    SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.builder(PayloadDecoder.json(Order.class), handler)
            .bootstrapServers(bootstrapServers)
            .groupId("payments")
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store)
            .workerThreads(WorkerThreads.virtualThreads()) // JDK 21+; refused on an older JVM
            .concurrency(10_000) // handlers blocked on I/O at once: cheap on virtual threads
            .build();
    // README:end virtual-threads
    return consumer;
  }

  /**
   * @param bootstrapServers the Kafka cluster
   * @param store the idempotency store
   * @param database where the ledger table is
   * @return the consumer, not started
   */
  public static SigloKafkaConsumer<Order> batch(
      String bootstrapServers, IdempotencyStore store, javax.sql.DataSource database) {
    // README:start batch-consumer
    SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.batchBuilder(
                PayloadDecoder.json(Order.class), new LedgerBatchHandler(database))
            .bootstrapServers(bootstrapServers)
            .groupId("ledger")
            .topics("orders")
            .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
            .store(store) // the batch's keys are claimed in one call, its outcomes recorded in one
            .batchSize(200) // orders handed over at once, at most one per key
            .batchLinger(Duration.ofMillis(20)) // a batch that is not full waits this long for more
            .concurrency(4) // batches running at once
            .build();
    // README:end batch-consumer
    return consumer;
  }
}
