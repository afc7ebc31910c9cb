package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.kafka.Ordering;
import dev.siglo.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Scenario 2: one partition, records spread over many record keys, a handler that waits 5 ms
 * (simulated I/O). Baseline: the plain loop, sequential. Siglo in {@link Ordering#KEY} mode with
 * concurrency 256 on the in-memory store. The ideal is records × 5 ms ÷ concurrency.
 */
final class SlowHandlers extends Scenario {
  static final String SCENARIO = "Slow handlers (5 ms)";
  private static final int CONCURRENCY = 256;
  private static final long HANDLER_MILLIS = 5;

  private int runs;

  SlowHandlers(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    KafkaBroker kafka = servers.kafka();
    int keys = size.slowKeys();
    int base = Math.min(size.slowRecords(), size.slowBaselineRecords());
    String baseTopic = produce(kafka, "bench-slow-base-" + base, base, keys);
    Sample plain = new Sample();
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      plain.add(plainLoop(kafka, baseTopic, base), rep == 0);
    }
    report.baseline(
        SCENARIO,
        String.format(Locale.ROOT, "plain loop, sequential (%,d records)", base),
        plain,
        "rec/s");
    Sample ideal = new Sample();
    ideal.add(CONCURRENCY * 1000.0 / HANDLER_MILLIS);
    sized(kafka, size.slowRecords(), keys, plain, ideal, 0.7);
    if (size.slowLargeRecords() > 0) {
      sized(kafka, size.slowLargeRecords(), keys, plain, ideal, 0.85);
    }
    report.check(
        String.format(
            Locale.ROOT,
            "%s: every record handled exactly once and the partition committed to the end, in %d"
                + " runs",
            SCENARIO,
            runs));
  }

  /** Siglo on {@code n} records: the cold run and the warm ones, against the ideal. */
  private void sized(KafkaBroker kafka, int n, int keys, Sample plain, Sample ideal, double target)
      throws Exception {
    String topic = produce(kafka, "bench-slow-" + n, n, keys);
    Sample siglo = new Sample();
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      siglo.add(siglo(kafka, topic, n), rep == 0);
    }
    report.compared(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "Siglo KEY, concurrency %d, in-memory (%,d records, %,d keys)",
            CONCURRENCY,
            n,
            keys),
        siglo,
        "rec/s",
        plain,
        Double.NaN);
    report.compared(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "Siglo ÷ ideal at %,d records (%d handlers always busy: %s)",
            n,
            CONCURRENCY,
            Report.format(ideal.median(), "rec/s")),
        siglo,
        "rec/s",
        ideal,
        target);
  }

  static String produce(KafkaBroker kafka, String topic, int n, int keys) {
    kafka.createTopics(1, topic, topic + "-dlt");
    KafkaData.produce(
        kafka.bootstrapServers(),
        n,
        i ->
            new ProducerRecord<>(
                topic,
                null,
                ("key-" + (i % keys)).getBytes(StandardCharsets.UTF_8),
                KafkaData.payload(i),
                List.of(
                    new RecordHeader(
                        "idempotency-key", ("s" + i).getBytes(StandardCharsets.UTF_8)))));
    return topic;
  }

  private Ledger plainLoop(KafkaBroker kafka, String topic, int n) throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = "bench-slow-plain-" + ++runs;
    PlainLoop.run(
        kafka.bootstrapServers(),
        topic,
        group,
        ledger,
        n,
        r -> {
          simulatedIo();
          ledger.executed(KafkaData.index(r.value()));
          ledger.finished();
        });
    return KafkaData.verified(kafka, topic, group, ledger);
  }

  private Ledger siglo(KafkaBroker kafka, String topic, int n) throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = "bench-slow-siglo-" + ++runs;
    MessageHandler<byte[]> handler =
        (payload, context) -> {
          simulatedIo();
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    return SigloKafkaRun.run(
        kafka,
        topic,
        group,
        PayloadDecoder.bytes(),
        StoreKind.MEMORY.open(servers, CONCURRENCY),
        KeyExtractors.header("idempotency-key"),
        CONCURRENCY,
        handler,
        ledger,
        null);
  }

  /** The handler's simulated I/O: a blocking wait, as a remote call would be. */
  private static void simulatedIo() throws InterruptedException {
    Thread.sleep(HANDLER_MILLIS);
  }
}
