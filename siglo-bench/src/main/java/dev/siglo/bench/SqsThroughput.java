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
import java.util.concurrent.atomic.AtomicInteger;
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
      // repetition 0 is each configuration's cold run, reported apart from the warm median
      for (int rep = 0; rep <= size.repetitions(); rep++) {
        boolean cold = rep == 0;
        plain.add(plainLoop(server, sqs, n), cold);
        memory.add(siglo(server, sqs, n, StoreKind.MEMORY), cold);
        redis.add(siglo(server, sqs, n, StoreKind.REDIS), cold);
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
        SCENARIO, String.format(siglo, StoreKind.MEMORY.label), memory, "msg/s", plain, 0.95);
    report.compared(
        SCENARIO, String.format(siglo, StoreKind.REDIS.label), redis, "msg/s", plain, 0.8);
    report.cpuCompared(
        SCENARIO,
        "CPU per message: Siglo, " + StoreKind.MEMORY.label + " ÷ plain loop",
        memory,
        plain,
        Double.NaN);
    report.cpuSplit(SCENARIO, "plain SDK loop", plain);
    report.cpuSplit(SCENARIO, "Siglo, " + StoreKind.MEMORY.label, memory);
    report.cpuSplit(SCENARIO, "Siglo, " + StoreKind.REDIS.label, redis);
    report.row(
        new Report.Row(
            SCENARIO,
            "messages per receive call: plain loop / Siglo, in-memory / Siglo, Redis",
            String.format(
                Locale.ROOT,
                "%.1f / %.1f / %.1f",
                perReceive(plainReceives),
                perReceive(receives.get(StoreKind.MEMORY)),
                perReceive(receives.get(StoreKind.REDIS))),
            "",
            "",
            "",
            "",
            "≥ 9 (Siglo)",
            Math.min(
                        perReceive(receives.get(StoreKind.MEMORY)),
                        perReceive(receives.get(StoreKind.REDIS)))
                    >= 9
                ? "met"
                : "missed"));
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

  /** Receive calls that returned messages, and the messages they returned, per configuration. */
  private final long[] plainReceives = new long[2];

  private final Map<StoreKind, long[]> receives = new java.util.EnumMap<>(StoreKind.class);

  private static double perReceive(long[] counts) {
    return counts == null || counts[0] == 0 ? Double.NaN : (double) counts[1] / counts[0];
  }

  /** Waits until the queue is seen empty (every delete landed) and ends the ledger's window. */
  private static void awaitEmpty(SqsClient sqs, String url, String name, Ledger ledger)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (SqsServer.messagesIn(sqs, url) != 0) {
      if (System.nanoTime() > deadline) {
        throw new BenchmarkFailure(name + ": the queue is not empty 60 s after the last message");
      }
      Thread.sleep(5); // the observer's poll interval: part of the measured window's resolution
    }
    ledger.durable();
  }

  private Ledger plainLoop(SqsServer server, SqsClient sqs, int n) throws Exception {
    String name = "bench-plain-" + ++runs;
    String url = fill(server, sqs, n, name);
    Ledger ledger = new Ledger(n, n);
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pollers =
        Executors.newFixedThreadPool(
            POLLERS, r -> new Thread(r, "plain-poller-" + threads.incrementAndGet()));
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
                    synchronized (plainReceives) {
                      plainReceives[0]++;
                      plainReceives[1] += received.size();
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
      awaitEmpty(sqs, url, name, ledger);
      for (Future<?> f : loops) {
        f.get();
      }
    } finally {
      pollers.shutdownNow();
    }
    return verified(sqs, url, name, ledger);
  }

  private Ledger siglo(SqsServer server, SqsClient sqs, int n, StoreKind kind) throws Exception {
    String name = "bench-siglo-" + kind.name().toLowerCase(Locale.ROOT) + "-" + ++runs;
    String url = fill(server, sqs, n, name);
    Ledger ledger = new Ledger(n, n);
    MessageHandler<byte[]> handler =
        (payload, context) -> {
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    IdempotencyStore store = kind.open(servers, CONCURRENCY + 8);
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    try {
      SigloSqsConsumer<byte[]> consumer =
          SigloSqsConsumer.builder(PayloadDecoder.bytes(), handler)
              .client(sqs)
              .queueUrl(url)
              .threads(POLLERS, CONCURRENCY, CONCURRENCY * 10)
              .waitTime(Duration.ofSeconds(1))
              .store(store)
              .metrics(registry)
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
        awaitEmpty(sqs, url, name, ledger);
      } finally {
        consumer.close(Duration.ofSeconds(30));
      }
      var summary =
          registry.find(dev.siglo.consumer.metrics.SigloMetrics.RECEIVED).summaries().stream()
              .findFirst();
      summary.ifPresent(
          r -> {
            long[] counts = receives.computeIfAbsent(kind, k -> new long[2]);
            counts[0] += r.count();
            counts[1] += Math.round(r.totalAmount());
          });
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

  private static Ledger verified(SqsClient sqs, String url, String name, Ledger ledger) {
    ledger.tally().requireExactlyOnce(name);
    long remaining = SqsServer.messagesIn(sqs, url);
    if (remaining != 0) {
      throw new BenchmarkFailure(name + ": " + remaining + " message(s) left in the queue");
    }
    sqs.deleteQueue(b -> b.queueUrl(url));
    return ledger;
  }
}
