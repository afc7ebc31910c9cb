package dev.siglo.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.PostgresServerExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The partitioned layout rolling over under load, on the database clock: records kept 2 s, leases
 * as long, partitions of 1 s, a purge every 250 ms, four workers claiming and completing new keys
 * for six retention periods while a checker claims again the keys completed less than a second ago.
 * Every such claim must answer the record (no live record is dropped with its partition), and once
 * the first records expired the table's rows and partitions must stay flat: expired partitions are
 * dropped as fast as new ones fill.
 */
class PostgresPartitionRolloverIT {
  @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);

  private static final Duration RETENTION = Duration.ofSeconds(2);
  private static final Duration RUN = RETENTION.multipliedBy(6);
  // a lease as short as the retention: a claim's row sits in the partition of its lease end, and a
  // lease of many partition widths would only add empty partitions ahead (each read probes all)
  private static final Duration LEASE = RETENTION;
  // the longest a completed record stays: about 4.3 s, and slack for a purge late under load
  private static final Duration LIFE = Duration.ofSeconds(7);
  private static final int WRITERS = 4;

  @Test
  void expiredPartitionsAreDroppedWhileLiveRecordsStayAndTheTableStaysFlat() throws Exception {
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(PG.server().jdbcUrl());
    hikari.setMaximumPoolSize(12);
    try (HikariDataSource pool = new HikariDataSource(hikari);
        PostgresIdempotencyStore store =
            PostgresIdempotencyStore.of(
                PostgresStoreConfig.builder(pool)
                    .table("rollover")
                    .partitioned(Duration.ofSeconds(1))
                    .purgeGrace(Duration.ofSeconds(1))
                    .createTable(true)
                    .build())) {
      store.clear();
      store.schedulePurge(Duration.ofMillis(250));
      IdempotencyKeys keys = IdempotencyKeys.defaults();
      ConcurrentLinkedDeque<long[]> recent = new ConcurrentLinkedDeque<>(); // {id, completed at}
      AtomicLong next = new AtomicLong();
      AtomicInteger completed = new AtomicInteger();
      AtomicInteger checked = new AtomicInteger();
      List<String> lost = java.util.Collections.synchronizedList(new ArrayList<>());
      long end = System.nanoTime() + RUN.toNanos();
      ExecutorService threads = Executors.newFixedThreadPool(5);
      List<Future<?>> work = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        work.add(
            threads.submit(
                () -> {
                  while (System.nanoTime() < end) {
                    long id = next.getAndIncrement();
                    String key = keys.key("r-" + id);
                    ClaimResult.Claimed claim =
                        (ClaimResult.Claimed) store.claim(new ClaimRequest(key, null, LEASE));
                    store.complete(key, claim.token(), new Outcome.Success("1"), RETENTION);
                    recent.addLast(new long[] {id, System.nanoTime()});
                    completed.incrementAndGet();
                  }
                  return null;
                }));
      }
      work.add(
          threads.submit(
              () -> {
                while (System.nanoTime() < end) {
                  long[] entry = recent.pollFirst();
                  if (entry == null) {
                    Thread.onSpinWait();
                    continue;
                  }
                  if (System.nanoTime() - entry[1] > Duration.ofSeconds(1).toNanos()) {
                    continue; // only records well within their retention
                  }
                  String key = keys.key("r-" + entry[0]);
                  if (!(store.claim(new ClaimRequest(key, null, LEASE))
                      instanceof ClaimResult.Completed)) {
                    lost.add(key);
                  }
                  checked.incrementAndGet();
                }
                return null;
              }));
      List<long[]> samples = new ArrayList<>(); // {elapsed ms, rows, partitions, completed}
      long start = System.nanoTime();
      while (System.nanoTime() < end) {
        Thread.sleep(500); // the sampling interval
        samples.add(
            new long[] {
              (System.nanoTime() - start) / 1_000_000,
              rows(pool),
              store.partitions().size(),
              completed.get()
            });
      }
      for (Future<?> f : work) {
        f.get();
      }
      threads.shutdown();

      System.out.printf(
          "partition rollover: %d records completed, %d re-claimed within retention,"
              + " rows and partitions every 500 ms:%n",
          completed.get(), checked.get());
      samples.forEach(
          s -> System.out.printf("  %5d ms  %6d rows  %3d partitions%n", s[0], s[1], s[2]));
      assertThat(lost).as("records dropped within their retention").isEmpty();
      assertThat(checked.get()).isPositive();
      // steady state: a record lives at most retention + grace + two partitions + a purge
      // interval (about 4.3 s), so the table holds no more than the records completed in the last
      // LIFE (with slack for a purge late on a loaded machine), plus the claims in progress; rows
      // kept without drops would be every record since the start. Counted against the records
      // completed, not a rate, so a machine whose speed changes within the run does not matter.
      List<long[]> steady = samples.stream().filter(s -> s[0] >= LIFE.toMillis() + 500).toList();
      assertThat(steady).isNotEmpty();
      for (long[] sample : steady) {
        long completedBefore =
            samples.stream()
                .filter(earlier -> earlier[0] <= sample[0] - LIFE.toMillis())
                .mapToLong(earlier -> earlier[3])
                .max()
                .orElse(0);
        assertThat(sample[1])
            .as(
                "rows at %d ms, with %d records completed since %d ms before",
                sample[0], sample[3] - completedBefore, LIFE.toMillis())
            .isLessThanOrEqualTo(sample[3] - completedBefore + WRITERS);
      }
      assertThat(steady.stream().mapToLong(s -> s[2]).max().orElseThrow())
          .as("partitions: lease or retention, grace, those ahead and the one filling")
          .isLessThanOrEqualTo(10);
    }
  }

  private static long rows(HikariDataSource pool) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM rollover")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
