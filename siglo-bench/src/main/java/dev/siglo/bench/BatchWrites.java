package dev.siglo.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.testkit.KafkaBroker;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

/**
 * Scenario: a handler whose effect is a row in PostgreSQL, with the idempotency store in the same
 * PostgreSQL: a per-message handler (one {@code INSERT} per message) against a {@link
 * BatchMessageHandler} (one {@code INSERT … SELECT unnest(…)} per batch), both on Kafka with {@code
 * KEY} ordering over distinct keys. Reported: messages per second (the window ends at the commit
 * covering the last record) and database calls per message, counted in the client (every statement
 * execution and commit through the consumer's {@link CountingDataSource}: the store's claims and
 * completions and the handler's inserts). The table's primary key refuses a second row for a
 * record, and every record must have its row at the end.
 */
final class BatchWrites extends Scenario {
  static final String SCENARIO = "Batch writes (PostgreSQL, 5 partitions)";
  private static final int PER_MESSAGE_CONCURRENCY = 32;
  private static final int BATCH_CONCURRENCY = 8;
  private static final int POOL = 32;
  private static final String TABLE = "bench_writes";

  private int runs;

  BatchWrites(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    KafkaBroker kafka = servers.kafka();
    int n = size.postgresRecords();
    String topic = "bench-batch-writes-" + n;
    kafka.createTopics(5, topic, topic + "-dlt");
    KafkaData.produce(
        kafka.bootstrapServers(),
        n,
        i ->
            new org.apache.kafka.clients.producer.ProducerRecord<>(
                topic,
                i % 5,
                ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8),
                KafkaData.payload(i),
                List.of(
                    new org.apache.kafka.common.header.internals.RecordHeader(
                        "idempotency-key",
                        ("w" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)))));
    Sample perMessage = new Sample();
    Sample batched = new Sample();
    double[] callsPerMessage = new double[2];
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      perMessage.add(siglo(kafka, topic, n, false, callsPerMessage), rep == 0);
      batched.add(siglo(kafka, topic, n, true, callsPerMessage), rep == 0);
    }
    String what = String.format(Locale.ROOT, "%,d records", n);
    report.baseline(
        SCENARIO,
        "per-message handler, one INSERT per message, concurrency "
            + PER_MESSAGE_CONCURRENCY
            + " ("
            + what
            + ")",
        perMessage,
        "rec/s");
    report.compared(
        SCENARIO,
        "batch handler, one INSERT per batch (batch size "
            + ConsumerBuilder.DEFAULT_BATCH_SIZE
            + ", linger "
            + ConsumerBuilder.DEFAULT_BATCH_LINGER.toMillis()
            + " ms), "
            + BATCH_CONCURRENCY
            + " batches at once",
        batched,
        "rec/s",
        perMessage,
        Double.NaN);
    report.row(
        new Report.Row(
            SCENARIO,
            "database calls per message, counted in the client (statements executed and commits:"
                + " the store's and the handler's), last warm run: per-message / batch",
            String.format(Locale.ROOT, "%.2f / %.2f", callsPerMessage[0], callsPerMessage[1]),
            "",
            "",
            "",
            String.format(Locale.ROOT, "%.2f×", callsPerMessage[1] / callsPerMessage[0]),
            "",
            ""));
    report.check(
        String.format(
            Locale.ROOT,
            "%s: every record handled exactly once, its row written once, and every partition"
                + " committed to the end, in %d runs",
            SCENARIO,
            runs));
  }

  private Ledger siglo(KafkaBroker kafka, String topic, int n, boolean batch, double[] calls)
      throws Exception {
    StoreKind.settlePostgres(servers);
    resetTable();
    Ledger ledger = new Ledger(n, n);
    String group = "bench-batch-writes-" + ++runs;
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(servers.postgres().jdbcUrl());
    hikari.setMaximumPoolSize(POOL);
    hikari.setPoolName("siglo-bench-writes");
    try (HikariDataSource pool = new HikariDataSource(hikari)) {
      CountingDataSource db = new CountingDataSource(pool);
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.of(
              PostgresStoreConfig.builder(db)
                  .table("siglo_bench_writes")
                  .createTable(true)
                  .build());
      store.clear();
      long[] atDurable = new long[1];
      ledger.onDurable(() -> atDurable[0] = db.calls());
      long before = db.calls();
      SigloKafkaConsumer.Builder<byte[]> b =
          batch
              ? SigloKafkaConsumer.batchBuilder(PayloadDecoder.bytes(), batchInsert(db, ledger))
              : SigloKafkaConsumer.builder(PayloadDecoder.bytes(), insert(db, ledger));
      Ledger done =
          SigloKafkaRun.run(
              kafka,
              topic,
              group,
              b,
              store,
              KeyExtractors.header("idempotency-key"),
              batch ? BATCH_CONCURRENCY : PER_MESSAGE_CONCURRENCY,
              ledger,
              null);
      calls[batch ? 1 : 0] = (double) (atDurable[0] - before) / n;
      requireEveryRowOnce(n, group);
      return done;
    }
  }

  private static MessageHandler<byte[]> insert(CountingDataSource db, Ledger ledger) {
    return (payload, context) -> {
      int index = KafkaData.index(payload);
      try (Connection c = db.getConnection();
          PreparedStatement ps =
              c.prepareStatement("INSERT INTO " + TABLE + " (id, payload) VALUES (?, ?)")) {
        ps.setLong(1, index);
        ps.setBytes(2, payload);
        ps.executeUpdate();
      }
      ledger.executed(index);
      return null;
    };
  }

  private static BatchMessageHandler<byte[]> batchInsert(CountingDataSource db, Ledger ledger) {
    return items -> {
      Long[] ids = new Long[items.size()];
      byte[][] payloads = new byte[items.size()][];
      for (int i = 0; i < items.size(); i++) {
        BatchItem<byte[]> item = items.get(i);
        ids[i] = (long) KafkaData.index(item.value());
        payloads[i] = item.value();
      }
      try (Connection c = db.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + TABLE
                      + " (id, payload) SELECT * FROM unnest(?::bigint[], ?::bytea[])")) {
        Array idArray = c.createArrayOf("bigint", ids);
        Array payloadArray = c.createArrayOf("bytea", payloads);
        ps.setArray(1, idArray);
        ps.setArray(2, payloadArray);
        ps.executeUpdate();
      }
      for (Long id : ids) {
        ledger.executed(id.intValue());
      }
      return BatchResult.allSucceeded();
    };
  }

  private void resetTable() throws SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(servers.postgres().jdbcUrl());
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (id bigint PRIMARY KEY, payload bytea NOT NULL)");
      s.execute("TRUNCATE " + TABLE);
    }
  }

  private void requireEveryRowOnce(int n, String group) throws SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(servers.postgres().jdbcUrl());
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM " + TABLE)) {
      r.next();
      if (r.getLong(1) != n || r.getLong(2) != n || r.getLong(3) != 0 || r.getLong(4) != n - 1) {
        throw new BenchmarkFailure(
            group + ": " + r.getLong(1) + " rows for " + n + " records in " + TABLE);
      }
    }
  }
}
