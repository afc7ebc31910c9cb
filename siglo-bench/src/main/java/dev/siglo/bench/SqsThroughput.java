package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.testkit.SqsServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Scenario 3: SQS on ElasticMQ with the AWS SDK v2 client. Baseline: plain SDK loops (receive ten,
 * handle, delete them in one batch), as many as Siglo has pollers. Siglo with the in-memory store
 * and with Redis. Every run must handle every message exactly once and leave the queue empty.
 */
final class SqsThroughput extends Scenario {
  static final String SCENARIO = "SQS throughput";
  private static final int POLLERS = 4;

  /** Enough for a trivial handler; more workers only compete for the cores with ElasticMQ. */
  private static final int CONCURRENCY = 8;

  private int runs;

  SqsThroughput(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    SqsServer server = servers.sqs();
    int n = size.sqsMessages();
    Sample plain = new Sample();
    Sample memory = new Sample();
    Sample redis = new Sample();
    try (SqsClient sqs = server.client()) {
      // repetition 0 warms the JIT up and is not counted
      for (int rep = 0; rep <= size.repetitions(); rep++) {
        boolean warmUp = rep == 0;
        double p = plainLoop(server, sqs, n);
        double m = siglo(server, sqs, n, StoreKind.MEMORY);
        double r = siglo(server, sqs, n, StoreKind.REDIS);
        if (!warmUp) {
          plain.add(p);
          memory.add(m);
          redis.add(r);
        }
      }
    }
    report.baseline(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "plain SDK loop, %d pollers, receive 10 / delete batch (%,d messages)",
            POLLERS,
            n),
        plain,
        "msg/s");
    String siglo = "Siglo, %s, " + POLLERS + " pollers, concurrency " + CONCURRENCY;
    report.compared(
        SCENARIO, String.format(siglo, StoreKind.MEMORY.label), memory, "msg/s", plain, 0.8);
    report.compared(
        SCENARIO, String.format(siglo, StoreKind.REDIS.label), redis, "msg/s", plain, Double.NaN);
    report.check(
        String.format(
            Locale.ROOT,
            "%s: every configuration handled each message exactly once and left its queue empty,"
                + " in %d runs",
            SCENARIO,
            runs));
  }

  private String fill(SqsServer server, SqsClient sqs, int n, String name) throws Exception {
    String url = server.createQueue(name, Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "60"));
    ExecutorService senders = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> sent = new ArrayList<>();
      for (int from = 0; from < n; from += 10) {
        int start = from;
        sent.add(
            senders.submit(
                () -> {
                  List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
                  for (int i = start; i < Math.min(n, start + 10); i++) {
                    batch.add(
                        SendMessageBatchRequestEntry.builder()
                            .id(Integer.toString(i))
                            .messageBody(
                                new String(KafkaData.payload(i), StandardCharsets.US_ASCII))
                            .messageAttributes(
                                Map.of(
                                    "idempotency-key",
                                    MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue("m" + i)
                                        .build()))
                            .build());
                  }
                  if (!sqs.sendMessageBatch(b -> b.queueUrl(url).entries(batch))
                      .failed()
                      .isEmpty()) {
                    throw new BenchmarkFailure("sending benchmark messages failed");
                  }
                  return null;
                }));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    } finally {
      senders.shutdownNow();
    }
    return url;
  }

  private double plainLoop(SqsServer server, SqsClient sqs, int n) throws Exception {
    String name = "bench-plain-" + ++runs;
    String url = fill(server, sqs, n, name);
    Ledger ledger = new Ledger(n, n);
    ExecutorService pollers = Executors.newFixedThreadPool(POLLERS);
    try {
      List<Future<?>> loops = new ArrayList<>();
      for (int p = 0; p < POLLERS; p++) {
        loops.add(
            pollers.submit(
                () -> {
                  while (ledger.progress() < n) {
                    List<Message> received =
                        sqs.receiveMessage(
                                b ->
                                    b.queueUrl(url)
                                        .maxNumberOfMessages(10)
                                        .waitTimeSeconds(1)
                                        .messageAttributeNames("All"))
                            .messages();
                    if (received.isEmpty()) {
                      continue;
                    }
                    List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>();
                    for (Message m : received) {
                      ledger.executed(
                          KafkaData.index(m.body().getBytes(StandardCharsets.US_ASCII)));
                      deletes.add(
                          DeleteMessageBatchRequestEntry.builder()
                              .id(m.messageId())
                              .receiptHandle(m.receiptHandle())
                              .build());
                    }
                    DeleteMessageBatchResponse r =
                        sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(deletes));
                    if (!r.failed().isEmpty()) {
                      throw new BenchmarkFailure("plain loop: deletes failed: " + r.failed());
                    }
                    received.forEach(m -> ledger.finished());
                  }
                  return null;
                }));
      }
      if (!ledger.await(runTimeout(n))) {
        throw new BenchmarkFailure(name + ": finished " + ledger.progress() + " of " + n);
      }
      for (Future<?> f : loops) {
        f.get();
      }
    } finally {
      pollers.shutdownNow();
    }
    return verified(sqs, url, name, ledger);
  }

  private double siglo(SqsServer server, SqsClient sqs, int n, StoreKind kind) throws Exception {
    String name = "bench-siglo-" + kind.name().toLowerCase(Locale.ROOT) + "-" + ++runs;
    String url = fill(server, sqs, n, name);
    Ledger ledger = new Ledger(n, n);
    MessageHandler<byte[]> handler =
        (payload, context) -> {
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    IdempotencyStore store = kind.open(servers, CONCURRENCY + 8);
    try {
      SigloSqsConsumer<byte[]> consumer =
          SigloSqsConsumer.builder(PayloadDecoder.bytes(), handler)
              .client(sqs)
              .queueUrl(url)
              .threads(POLLERS, CONCURRENCY, CONCURRENCY * 10)
              .waitTime(Duration.ofSeconds(1))
              .store(store)
              .listener(
                  e -> {
                    if (e instanceof SigloEvent.Processed || e instanceof SigloEvent.Duplicate) {
                      ledger.finished();
                    }
                  })
              .build();
      CompletableFuture<Void> stopped = consumer.start();
      try {
        if (!ledger.await(runTimeout(n))) {
          throw new BenchmarkFailure(name + ": finished " + ledger.progress() + " of " + n);
        }
      } finally {
        consumer.close(Duration.ofSeconds(30));
      }
      if (stopped.isCompletedExceptionally()) {
        throw new BenchmarkFailure(name + ": the consumer failed");
      }
    } finally {
      StoreKind.dispose(store);
    }
    return verified(sqs, url, name, ledger);
  }

  private static Duration runTimeout(int n) {
    return Duration.ofSeconds(120 + n / 100);
  }

  private static double verified(SqsClient sqs, String url, String name, Ledger ledger) {
    ledger.tally().requireExactlyOnce(name);
    Map<QueueAttributeName, String> left =
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNames(
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
            .attributes();
    long remaining = left.values().stream().mapToLong(Long::parseLong).sum();
    if (remaining != 0) {
      throw new BenchmarkFailure(
          name + ": " + remaining + " message(s) left in the queue: " + left);
    }
    sqs.deleteQueue(b -> b.queueUrl(url));
    return ledger.perSecond();
  }
}
