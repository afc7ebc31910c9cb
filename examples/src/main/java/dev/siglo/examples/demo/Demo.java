package dev.siglo.examples.demo;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.examples.payments.CardDeclinedException;
import dev.siglo.examples.payments.ChargeOrderHandler;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.OrderStream;
import dev.siglo.examples.payments.PaymentGateway;
import dev.siglo.examples.payments.ReceiptSender;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.SqsServer;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.postgresql.ds.PGSimpleDataSource;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The payments demo: a stream of orders with duplicates (some concurrent), declined cards and
 * gateway timeouts, plus two undecodable messages, consumed by {@link ChargeOrderHandler} on Kafka
 * or SQS. Embedded servers by default; the options point it at real ones.
 */
public final class Demo {
  /**
   * What to run on.
   *
   * @param broker {@code kafka} or {@code sqs}
   * @param orders how many orders (each is published three times)
   * @param kafkaBootstrap an external Kafka cluster, or null for the embedded broker
   * @param sqsEndpoint an external SQS endpoint, or null for embedded ElasticMQ
   * @param redisUrl a Redis store ({@code redis://host:port}), or null
   * @param postgresUrl a PostgreSQL store (JDBC URL with user and password), or null
   */
  public record Options(
      String broker,
      int orders,
      String kafkaBootstrap,
      String sqsEndpoint,
      String redisUrl,
      String postgresUrl) {}

  /**
   * What happened.
   *
   * @param orders the order ids
   * @param declinedOrders orders whose card is declined
   * @param report the consumer's counts
   * @param exactlyOnce the check from the gateway's ledger
   * @param charges charges in the ledger
   * @param gatewayCalls calls the gateway received
   */
  public record Result(
      List<String> orders,
      Set<String> declinedOrders,
      DemoReport report,
      boolean exactlyOnce,
      int charges,
      int gatewayCalls) {}

  private static final int POISON = 2;

  /** The message attribute (Kafka header, SQS message attribute) that carries the order id. */
  static final String ORDER_ID = "order-id";

  private static final java.util.regex.Pattern ORDER_ID_IN_BODY =
      java.util.regex.Pattern.compile("\"orderId\":\"([^\"]+)\"");

  /** The publisher knows the order id; undecodable messages carry none. */
  private static java.util.Optional<String> orderIdOf(String body) {
    java.util.regex.Matcher m = ORDER_ID_IN_BODY.matcher(body);
    return m.find() ? java.util.Optional.of(m.group(1)) : java.util.Optional.empty();
  }

  private Demo() {}

  /**
   * Runs the demo and prints progress and a summary to {@code out}.
   *
   * @param options what to run on
   * @param out where to print
   * @return what happened
   * @throws Exception when a server cannot be started or the run does not finish in time
   */
  public static Result run(Options options, PrintStream out) throws Exception {
    PaymentGateway gateway = OrderStream.gateway();
    ReceiptSender receipts = new ReceiptSender();
    DemoReport report = new DemoReport();
    OrderStream stream = OrderStream.of(options.orders());
    List<String> orders = stream.ids();
    Set<String> declined = stream.declined();
    List<String> bodies = stream.deliveries(POISON);
    int total = bodies.size();
    try (IdempotencyStore store = store(options)) {
      out.printf(
          "Siglo demo on %s: %d orders, %d messages (each order three times, shuffled), %d undecodable%n",
          options.broker(), options.orders(), total, POISON);
      if (options.broker().equals("sqs")) {
        runSqs(options, store, gateway, receipts, report, bodies, out);
      } else {
        runKafka(options, store, gateway, receipts, report, bodies, out);
      }
    }
    boolean ok = DemoReport.exactlyOnce(orders, declined, gateway.ledger());
    Result result =
        new Result(orders, declined, report, ok, gateway.ledger().size(), gateway.calls());
    report.print(out, gateway, ok);
    return result;
  }

  private static IdempotencyStore store(Options options) {
    if (options.redisUrl() != null) {
      URI uri = URI.create(options.redisUrl());
      return RedisIdempotencyStore.of(
          RedisStoreConfig.custom()
              .hostAndPort(uri.getHost(), uri.getPort())
              .keyPrefix("siglo-demo:")
              .build());
    }
    if (options.postgresUrl() != null) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(options.postgresUrl());
      return PostgresIdempotencyStore.of(
          PostgresStoreConfig.builder(ds).table("siglo_demo").createTable(true).build());
    }
    return InMemoryIdempotencyStore.of();
  }

  private static ErrorClassifier classifier() {
    return ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build();
  }

  private static RetryConfig retry() {
    return RetryConfig.custom()
        .maxAttempts(3)
        .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
  }

  private static void runKafka(
      Options options,
      IdempotencyStore store,
      PaymentGateway gateway,
      ReceiptSender receipts,
      DemoReport report,
      List<String> bodies,
      PrintStream out)
      throws Exception {
    KafkaBroker embedded = options.kafkaBootstrap() == null ? KafkaBroker.start() : null;
    String bootstrap = embedded != null ? embedded.bootstrapServers() : options.kafkaBootstrap();
    String topic = "siglo-demo-orders-" + System.currentTimeMillis();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 6, (short) 1), new NewTopic(topic + "-dlt", 1, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (String body : bodies) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(topic, null, body.getBytes(StandardCharsets.UTF_8));
        orderIdOf(body)
            .ifPresent(id -> r.headers().add(ORDER_ID, id.getBytes(StandardCharsets.UTF_8)));
        producer.send(r);
      }
    }
    try (SigloKafkaConsumer<Order> consumer =
        SigloKafkaConsumer.builder(
                PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
            .bootstrapServers(bootstrap)
            .groupId("siglo-demo")
            .topics(topic)
            .keyExtractor(KeyExtractors.attribute(ORDER_ID))
            .store(store)
            .classifier(classifier())
            .retry(retry())
            .listener(report)
            .concurrency(16)
            .build()) {
      consumer.start();
      awaitAll(report, bodies.size(), out);
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  private static void runSqs(
      Options options,
      IdempotencyStore store,
      PaymentGateway gateway,
      ReceiptSender receipts,
      DemoReport report,
      List<String> bodies,
      PrintStream out)
      throws Exception {
    SqsServer server = options.sqsEndpoint() == null ? SqsServer.startOrExternal() : null;
    try (SqsClient sqs = server != null ? server.client() : externalClient(options.sqsEndpoint())) {
      String name = "siglo-demo-orders-" + System.currentTimeMillis();
      String url = sqs.createQueue(b -> b.queueName(name)).queueUrl();
      String dlq = sqs.createQueue(b -> b.queueName(name + "-dlq")).queueUrl();
      for (int i = 0; i < bodies.size(); i += 10) {
        List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
        for (int j = i; j < Math.min(i + 10, bodies.size()); j++) {
          SendMessageBatchRequestEntry.Builder e =
              SendMessageBatchRequestEntry.builder().id("m" + j).messageBody(bodies.get(j));
          orderIdOf(bodies.get(j))
              .ifPresent(
                  id ->
                      e.messageAttributes(
                          Map.of(
                              ORDER_ID,
                              software.amazon.awssdk.services.sqs.model.MessageAttributeValue
                                  .builder()
                                  .dataType("String")
                                  .stringValue(id)
                                  .build())));
          batch.add(e.build());
        }
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(batch));
      }
      try (SigloSqsConsumer<Order> consumer =
          SigloSqsConsumer.builder(
                  PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
              .client(sqs)
              .queueUrl(url)
              .keyExtractor(KeyExtractors.attribute(ORDER_ID))
              .store(store)
              .classifier(classifier())
              .retry(retry())
              .listener(report)
              .threads(2, 16, 64)
              .waitTime(Duration.ofSeconds(1))
              .deadLetterQueue(dlq, false)
              .build()) {
        consumer.start();
        awaitAll(report, bodies.size(), out);
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  private static SqsClient externalClient(String endpoint) {
    return SqsClient.builder().endpointOverride(URI.create(endpoint)).build();
  }

  private static void awaitAll(DemoReport report, int total, PrintStream out)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (report.received.get() < total) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the demo did not finish in 2 minutes: " + report.line());
      }
      out.println("  " + report.line());
      TimeUnit.MILLISECONDS.sleep(500); // progress output, once every half second
    }
    out.println("  " + report.line());
  }
}
