package dev.siglo.bench;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.support.NamedThreads;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.testkit.KafkaBroker;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Scenario: the slow-handler workload (one partition, {@code KEY} ordering, 5 ms per record, the
 * in-memory store) with the handler shapes and worker threads of issue 19, on one topic: a blocking
 * handler on 256 platform threads (the slow-handler scenario's configuration), on 10,000 platform
 * threads and on 10,000 virtual threads; an asynchronous handler (its stage completed 5 ms later by
 * a scheduler, as a non-blocking client would) on 256 platform threads and on 10,000 virtual
 * threads. Virtual-thread rows need a JDK 21+ ({@code -Dbench.java=...}); on an older JVM they are
 * reported as not run.
 */
final class HandlerShapes extends Scenario {
  static final String SCENARIO = "Handler shapes (5 ms)";
  private static final int PLATFORM_CONCURRENCY = 256;
  private static final int HIGH_CONCURRENCY = 10_000;
  private static final long HANDLER_MILLIS = 5;

  private final ScheduledExecutorService io =
      Executors.newScheduledThreadPool(2, NamedThreads.daemon("bench-async-io", true));
  private int runs;

  HandlerShapes(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    try {
      KafkaBroker kafka = servers.kafka();
      int n = size.slowLargeRecords() > 0 ? size.slowLargeRecords() : size.slowRecords();
      int keys = Math.min(HIGH_CONCURRENCY * 2, Math.max(1, n / 4));
      String topic = SlowHandlers.produce(kafka, "bench-shapes-" + n, n, keys);
      String what = String.format(Locale.ROOT, "%,d records, %,d keys", n, keys);
      Sample base = sample(kafka, topic, n, false, WorkerThreads.platform(), PLATFORM_CONCURRENCY);
      report.baseline(
          SCENARIO,
          "blocking handler, " + PLATFORM_CONCURRENCY + " platform threads (" + what + ")",
          base,
          "rec/s");
      row(kafka, topic, n, base, false, WorkerThreads.platform(), HIGH_CONCURRENCY, what);
      row(kafka, topic, n, base, true, WorkerThreads.platform(), PLATFORM_CONCURRENCY, what);
      if (WorkerThreads.virtualThreadsAvailable()) {
        row(kafka, topic, n, base, false, WorkerThreads.virtualThreads(), HIGH_CONCURRENCY, what);
        row(kafka, topic, n, base, true, WorkerThreads.virtualThreads(), HIGH_CONCURRENCY, what);
      } else {
        report.note(
            SCENARIO
                + ": the virtual-thread rows were not run: this JVM is "
                + Runtime.version()
                + " (virtual threads need JDK 21+; run with -Dbench.java=<a JDK 21+>/bin/java)");
      }
      report.check(
          String.format(
              Locale.ROOT,
              "%s: every record handled exactly once and the partition committed to the end, in %d"
                  + " runs (on %s)",
              SCENARIO,
              runs,
              Runtime.version()));
    } finally {
      io.shutdownNow();
    }
  }

  private void row(
      KafkaBroker kafka,
      String topic,
      int n,
      Sample base,
      boolean async,
      WorkerThreads threads,
      int concurrency,
      String what)
      throws Exception {
    report.compared(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "%s handler, %,d %s threads (%s)",
            async ? "async" : "blocking",
            concurrency,
            threads,
            what),
        sample(kafka, topic, n, async, threads, concurrency),
        "rec/s",
        base,
        Double.NaN);
  }

  private Sample sample(
      KafkaBroker kafka, String topic, int n, boolean async, WorkerThreads threads, int concurrency)
      throws Exception {
    Sample s = new Sample();
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      s.add(siglo(kafka, topic, n, async, threads, concurrency), rep == 0);
    }
    return s;
  }

  private Ledger siglo(
      KafkaBroker kafka, String topic, int n, boolean async, WorkerThreads threads, int concurrency)
      throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = "bench-shapes-" + ++runs;
    SigloKafkaConsumer.Builder<byte[]> b;
    if (async) {
      AsyncMessageHandler<byte[]> handler =
          (payload, context) -> {
            CompletableFuture<Object> stage = new CompletableFuture<>();
            io.schedule(
                () -> {
                  ledger.executed(KafkaData.index(payload));
                  stage.complete(null);
                },
                HANDLER_MILLIS,
                TimeUnit.MILLISECONDS);
            return stage;
          };
      b = SigloKafkaConsumer.asyncBuilder(PayloadDecoder.bytes(), handler);
    } else {
      MessageHandler<byte[]> handler =
          (payload, context) -> {
            Thread.sleep(HANDLER_MILLIS);
            ledger.executed(KafkaData.index(payload));
            return null;
          };
      b = SigloKafkaConsumer.builder(PayloadDecoder.bytes(), handler);
    }
    b.workerThreads(threads);
    return SigloKafkaRun.run(
        kafka,
        topic,
        group,
        b,
        StoreKind.MEMORY.open(servers, concurrency),
        KeyExtractors.header("idempotency-key"),
        concurrency,
        ledger,
        null);
  }
}
