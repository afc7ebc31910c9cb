package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * Scenario 4: every key arrives five times over 6 partitions. The first two copies of a key are
 * written next to each other into the same partition under different record keys, so they are
 * fetched together and run at the same time, and one must wait for the other; the last three come
 * later, on other partitions, and find the key completed. The handler takes 1 ms. Siglo on the
 * Redis store must execute each key exactly once; the plain loop, the baseline, executes every
 * copy. Reports throughput and the latency of duplicates that waited and settled (from the start of
 * their processing to the settled answer).
 */
final class DuplicateStorm extends Scenario {
  static final String SCENARIO = "Duplicate storm";
  static final int COPIES = 5;
  private static final int PARTITIONS = 6;
  private static final int CONCURRENCY = 64;
  private static final ThreadLocal<long[]> STARTED = ThreadLocal.withInitial(() -> new long[1]);

  private final Function<Servers, IdempotencyStore> stores;
  private int runs;

  DuplicateStorm(Servers servers, Size size, Report report) {
    this(servers, size, report, s -> StoreKind.REDIS.open(s, CONCURRENCY + 8));
  }

  /** With another store: tests give it a broken one to see the exactly-once check fail the run. */
  DuplicateStorm(
      Servers servers, Size size, Report report, Function<Servers, IdempotencyStore> stores) {
    super(servers, size, report);
    this.stores = stores;
  }

  @Override
  void run() throws Exception {
    KafkaBroker kafka = servers.kafka();
    int keys = size.stormKeys();
    int baseKeys = Math.min(keys, size.stormBaselineKeys());
    String topic = produce(kafka, "bench-storm-" + keys, keys);
    String baseTopic =
        baseKeys == keys ? topic : produce(kafka, "bench-storm-base-" + baseKeys, baseKeys);
    Sample plain = new Sample();
    Sample siglo = new Sample();
    Sample p50 = new Sample();
    Sample p99 = new Sample();
    long settled = 0;
    long cached = 0;
    siglo(kafka, topic, keys); // warm-up, not counted
    for (int rep = 0; rep < size.repetitions(); rep++) {
      plain.add(plainLoop(kafka, baseTopic, baseKeys)); // sequential: its rate is flat
      Result r = siglo(kafka, topic, keys);
      siglo.add(r.rate());
      settled += r.settled();
      cached += r.cached();
      if (r.settled() > 0) {
        p50.add(r.latency().getValueAtPercentile(50) / 1000.0);
        p99.add(r.latency().getValueAtPercentile(99) / 1000.0);
      }
    }
    int messages = baseKeys * COPIES;
    report.baseline(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "plain loop, 1 ms handler (%,d messages, %,d keys × %d): %d effects per key",
            messages,
            baseKeys,
            COPIES,
            COPIES),
        plain,
        "msg/s");
    report.compared(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "Siglo, Redis store, concurrency %d (%,d messages): 1 effect per key",
            CONCURRENCY,
            keys * COPIES),
        siglo,
        "msg/s",
        plain,
        Double.NaN);
    if (p50.count() > 0) {
      report.row(
          new Report.Row(
              SCENARIO,
              String.format(
                  Locale.ROOT,
                  "wait-and-settle latency p50 / p99 (%,d settled, %,d found completed)",
                  settled,
                  cached),
              Report.format(p50.median(), "ms") + " / " + Report.format(p99.median(), "ms"),
              p99.spread() + " (p99)",
              "",
              "",
              "",
              "",
              ""));
    } else {
      report.note(SCENARIO + ": no duplicate had to wait in this run, so no settle latency");
    }
    report.check(
        String.format(
            Locale.ROOT,
            "%s: Siglo executed each of %,d keys exactly once (%d copies each) and committed all"
                + " partitions; the plain loop executed every copy; %d runs",
            SCENARIO,
            keys,
            COPIES,
            runs));
  }

  private static String produce(KafkaBroker kafka, String topic, int keys) {
    kafka.createTopics(PARTITIONS, topic, topic + "-dlt");
    List<int[]> order = new ArrayList<>(keys * COPIES);
    for (int k = 0; k < keys; k++) {
      order.add(new int[] {k, 0});
      order.add(new int[] {k, 1});
    }
    for (int c = 2; c < COPIES; c++) {
      for (int k = 0; k < keys; k++) {
        order.add(new int[] {k, c});
      }
    }
    KafkaData.produce(
        kafka.bootstrapServers(),
        order.size(),
        i -> {
          int key = order.get(i)[0];
          int copy = order.get(i)[1];
          return new ProducerRecord<>(
              topic,
              copy < 2 ? key % PARTITIONS : (key + copy) % PARTITIONS,
              ("c" + copy + "-k" + key).getBytes(StandardCharsets.UTF_8),
              KafkaData.payload(key),
              List.of(
                  new RecordHeader(
                      "idempotency-key", ("d" + key).getBytes(StandardCharsets.UTF_8))));
        });
    return topic;
  }

  private double plainLoop(KafkaBroker kafka, String topic, int keys) throws Exception {
    Ledger ledger = new Ledger(keys, (long) keys * COPIES);
    String group = "bench-storm-plain-" + ++runs;
    PlainLoop.run(
        kafka.bootstrapServers(),
        topic,
        group,
        ledger,
        (long) keys * COPIES,
        r -> {
          Thread.sleep(1); // the handler's simulated I/O
          ledger.executed(KafkaData.index(r.value()));
          ledger.finished();
        });
    Ledger.Tally t = ledger.tally();
    t.requireNoneLost(group);
    if (t.executions() != (long) keys * COPIES) {
      throw new BenchmarkFailure(group + ": the plain loop executed " + t.executions() + " times");
    }
    try (Admin admin = kafka.admin()) {
      KafkaData.requireCommittedToEnd(admin, group, topic, group);
    }
    return ledger.perSecond();
  }

  /**
   * @param rate messages per second
   * @param settled duplicates that waited for an in-flight copy
   * @param cached duplicates that found the key completed
   * @param latency settle latency of the waiting duplicates, microseconds
   */
  private record Result(double rate, long settled, long cached, Histogram latency) {}

  private Result siglo(KafkaBroker kafka, String topic, int keys) throws Exception {
    int messages = keys * COPIES;
    Ledger ledger = new Ledger(keys, messages);
    String group = "bench-storm-siglo-" + ++runs;
    ConcurrentHistogram latency = new ConcurrentHistogram(3);
    AtomicLong settled = new AtomicLong();
    AtomicLong cached = new AtomicLong();
    PayloadDecoder<byte[]> timed =
        message -> {
          STARTED.get()[0] = System.nanoTime(); // decoding is the first step of processing
          return message.payload();
        };
    MessageHandler<byte[]> handler =
        (payload, context) -> {
          Thread.sleep(1); // the handler's simulated I/O
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    double rate =
        SigloKafkaRun.run(
                kafka,
                topic,
                group,
                timed,
                stores.apply(servers),
                KeyExtractors.header("idempotency-key"),
                CONCURRENCY,
                handler,
                ledger,
                e -> {
                  if (e instanceof SigloEvent.Duplicate d) {
                    if (d.settled()) {
                      settled.incrementAndGet();
                      latency.recordValue((System.nanoTime() - STARTED.get()[0]) / 1000);
                    } else {
                      cached.incrementAndGet();
                    }
                  }
                })
            .perSecond();
    return new Result(rate, settled.get(), cached.get(), latency);
  }
}
