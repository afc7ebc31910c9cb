package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.RedisServer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/**
 * Scenario 1: records of 100 bytes over 6 partitions, a trivial handler. Baselines: the plain poll
 * loop, and the plain loop with the usual hand-written per-record Redis guard ({@code SET NX}
 * before the handler, {@code SET} of the result after it). Siglo with idempotency off, the
 * in-memory store, Redis and PostgreSQL. Every run must handle every record exactly once and commit
 * every partition to its end.
 */
final class KafkaThroughput extends Scenario {
  static final String SCENARIO = "Kafka throughput";
  private static final int PARTITIONS = 6;
  private static final int CONCURRENCY = 32;

  private final AtomicInteger runs = new AtomicInteger();
  // per store on the standalone Redis server: its CPU, script calls and commands per record
  private final Map<StoreKind, Sample[]> redisServer = new EnumMap<>(StoreKind.class);

  KafkaThroughput(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    KafkaBroker kafka = servers.kafka();
    int n = size.kafkaRecords();
    int pg = Math.min(n, size.postgresRecords());
    int peerRecords = Math.min(n, size.peerRecords());
    String topic = "bench-throughput-" + n;
    String pgTopic = pg == n ? topic : "bench-throughput-" + pg;
    String peerTopic = peerRecords == n ? topic : "bench-throughput-peer-" + peerRecords;
    produce(kafka, topic, n);
    if (!pgTopic.equals(topic)) {
      produce(kafka, pgTopic, pg);
    }
    if (!peerTopic.equals(topic)) {
      produce(kafka, peerTopic, peerRecords);
    }
    String label = String.format("%,d × 100 B, %d partitions", n, PARTITIONS);

    Sample plain = new Sample();
    Sample peer = new Sample();
    Map<StoreKind, Sample> siglo = new EnumMap<>(StoreKind.class);
    // repetition 0 is each configuration's cold run, reported apart from the warm median
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      boolean warmUp = rep == 0;
      record(warmUp, plain, plainLoop(kafka, topic, n));
      // the sequential peer's rate is flat (two round trips a record): measured on fewer records
      record(warmUp, peer, redisPeer(kafka, peerTopic, peerRecords));
      for (StoreKind kind : StoreKind.values()) {
        boolean postgres = kind.onPostgres();
        Sample sample = siglo.computeIfAbsent(kind, k -> new Sample());
        record(
            warmUp,
            sample,
            siglo(kafka, postgres ? pgTopic : topic, postgres ? pg : n, kind, warmUp));
      }
    }
    report.baseline(SCENARIO, "plain KafkaConsumer loop (" + label + ")", plain, "rec/s");
    report.compared(
        SCENARIO,
        String.format("hand-written Redis SET NX guard, per record (%,d records)", peerRecords),
        peer,
        "rec/s",
        plain,
        Double.NaN);
    for (StoreKind kind : StoreKind.values()) {
      String conf = "Siglo, " + kind.label + ", concurrency " + CONCURRENCY;
      if (kind.onPostgres() && pg != n) {
        conf += String.format(" (%,d records)", pg);
      }
      report.compared(SCENARIO, conf, siglo.get(kind), "rec/s", plain, kind.rateTarget());
    }
    report.cpuCompared(
        SCENARIO,
        "CPU per message: Siglo, " + StoreKind.MEMORY.label + " ÷ plain loop",
        siglo.get(StoreKind.MEMORY),
        plain,
        2.0);
    report.cpuSplit(SCENARIO, "plain loop (its poll loop runs on main)", plain);
    report.cpuSplit(SCENARIO, "Siglo, " + StoreKind.OFF.label, siglo.get(StoreKind.OFF));
    report.cpuSplit(SCENARIO, "Siglo, " + StoreKind.MEMORY.label, siglo.get(StoreKind.MEMORY));
    report.cpuSplit(SCENARIO, "Siglo, " + StoreKind.REDIS.label, siglo.get(StoreKind.REDIS));
    for (StoreKind kind : List.of(StoreKind.REDIS_HASHES, StoreKind.REDIS)) {
      Sample[] server = redisServer.get(kind);
      report.row(
          new Report.Row(
              SCENARIO,
              "Redis server per record, Siglo, "
                  + kind.label
                  + ": CPU (INFO cpu, network I/O included); time in scripts, script calls and"
                  + " commands run (INFO commandstats)",
              Report.format(server[0].median(), "µs")
                  + String.format(
                      java.util.Locale.ROOT,
                      "; %.1f µs in %.2f script calls, %.1f commands",
                      server[3].median(),
                      server[1].median(),
                      server[2].median()),
              server[0].spread(),
              "",
              "",
              "",
              "",
              ""));
    }
    double serverRatio =
        redisServer.get(StoreKind.REDIS)[0].median()
            / redisServer.get(StoreKind.REDIS_HASHES)[0].median();
    report.row(
        new Report.Row(
            SCENARIO,
            "Redis server CPU per record (INFO cpu): string records, native claims and completions ÷ 1.0's hash records (same run)",
            "",
            "",
            "",
            "",
            String.format(java.util.Locale.ROOT, "%.2f×", serverRatio),
            "≤ 0.50×",
            serverRatio <= 0.5 ? "met" : "missed"));
    Sample redis = siglo.get(StoreKind.REDIS);
    report.compared(
        SCENARIO, "Siglo, Redis store ÷ hand-written Redis guard", redis, "rec/s", peer, 3.0);
    report.check(
        String.format(
            "%s: every configuration handled each of its records exactly once and committed all %d"
                + " partitions to the end, in %d runs",
            SCENARIO, PARTITIONS, runs.get()));
  }

  private static void record(boolean cold, Sample sample, Ledger run) {
    sample.add(run, cold);
  }

  private static void produce(KafkaBroker kafka, String topic, int n) {
    kafka.createTopics(PARTITIONS, topic, topic + "-dlt");
    KafkaData.produce(
        kafka.bootstrapServers(),
        n,
        i ->
            new ProducerRecord<>(
                topic, ("k" + i).getBytes(StandardCharsets.UTF_8), KafkaData.payload(i)));
  }

  private String group(String what) {
    return "bench-" + what + "-" + runs.incrementAndGet();
  }

  private Ledger plainLoop(KafkaBroker kafka, String topic, int n) throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = group("plain");
    PlainLoop.run(
        kafka.bootstrapServers(),
        topic,
        group,
        ledger,
        n,
        r -> {
          ledger.executed(KafkaData.index(r.value()));
          ledger.finished();
        });
    return KafkaData.verified(kafka, topic, group, ledger);
  }

  private Ledger redisPeer(KafkaBroker kafka, String topic, int n) throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = group("peer");
    RedisServer redis = servers.redis();
    try (Jedis jedis = new Jedis(redis.host(), redis.port())) {
      String prefix = "peer:" + group + ":";
      SetParams claim = SetParams.setParams().nx().ex(86_400);
      SetParams result = SetParams.setParams().ex(86_400);
      PlainLoop.run(
          kafka.bootstrapServers(),
          topic,
          group,
          ledger,
          n,
          r -> {
            String key = prefix + new String(r.key(), StandardCharsets.UTF_8);
            if ("OK".equals(jedis.set(key, "in-progress", claim))) {
              ledger.executed(KafkaData.index(r.value()));
              jedis.set(key, "done", result);
            }
            ledger.finished();
          });
      jedis.flushDB();
    }
    return KafkaData.verified(kafka, topic, group, ledger);
  }

  private Ledger siglo(KafkaBroker kafka, String topic, int n, StoreKind kind, boolean cold)
      throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = group("siglo-" + kind.name().toLowerCase(java.util.Locale.ROOT));
    MessageHandler<byte[]> handler =
        (payload, context) -> {
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    if (kind.onPostgres()) {
      StoreKind.settlePostgres(servers);
    }
    var store = kind.open(servers, CONCURRENCY + 8);
    RedisServerCpu serverCpu =
        kind.onStandaloneRedis() ? RedisServerCpu.over(servers.redis(), ledger) : null;
    Ledger run =
        SigloKafkaRun.run(
            kafka,
            topic,
            group,
            PayloadDecoder.bytes(),
            store,
            KeyExtractors.recordKey(),
            CONCURRENCY,
            handler,
            ledger,
            null);
    if (serverCpu != null && !cold) {
      Sample[] server =
          redisServer.computeIfAbsent(
              kind, k -> new Sample[] {new Sample(), new Sample(), new Sample(), new Sample()});
      server[0].add(serverCpu.microsPerMessage(n));
      server[1].add(serverCpu.scriptCallsPerMessage(n));
      server[2].add(serverCpu.commandsPerMessage(n));
      server[3].add(serverCpu.scriptMicrosPerMessage(n));
    }
    return run;
  }
}
