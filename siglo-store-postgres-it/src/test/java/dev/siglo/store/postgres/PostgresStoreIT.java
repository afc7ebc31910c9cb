package dev.siglo.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.FreePorts;
import dev.siglo.testkit.MultiProcessClaimRace;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.PostgresServerExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresStoreIT {
  @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofHours(1);
  private static HikariDataSource pool;

  @BeforeAll
  static void openPool() {
    pool = pool(PG.server().jdbcUrl(), 8, Duration.ofSeconds(5));
  }

  @AfterAll
  static void closePool() {
    pool.close();
  }

  static HikariDataSource pool(String url, int size, Duration connectionTimeout) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url);
    c.setMaximumPoolSize(size);
    c.setConnectionTimeout(connectionTimeout.toMillis());
    c.setInitializationFailTimeout(-1);
    return new HikariDataSource(c);
  }

  private static PostgresIdempotencyStore store(String table) {
    return PostgresIdempotencyStore.of(
        PostgresStoreConfig.builder(pool).table(table).createTable(true).build());
  }

  private static ClaimToken claimed(PostgresIdempotencyStore store, String key) {
    return ((ClaimResult.Claimed) store.claim(new ClaimRequest(key, null, LEASE))).token();
  }

  @Test
  void aBatchClaimIsOneStatementForNewKeysAndTwoWhenSomeAreTakenAndABatchCompletionOne() {
    CountingDataSource counting = new CountingDataSource(pool);
    PostgresIdempotencyStore store =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(counting.dataSource)
                .table("batch_records")
                .createTable(true)
                .build());
    store.clear();
    List<ClaimRequest> fresh = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      fresh.add(new ClaimRequest(IdempotencyKeys.defaults().key("b-" + i), "fp", LEASE));
    }
    counting.executions.set(0);

    List<BatchClaimResult> first = store.claimAll(fresh);

    assertThat(counting.executions).hasValue(1);
    assertThat(first).allMatch(r -> r.result() instanceof ClaimResult.Claimed);
    List<ClaimRequest> mixed = new ArrayList<>(fresh.subList(0, 10));
    mixed.add(new ClaimRequest(IdempotencyKeys.defaults().key("b-new"), "fp", LEASE));
    mixed.add(new ClaimRequest(IdempotencyKeys.defaults().key("b-1"), "other-fp", LEASE));
    mixed.set(1, new ClaimRequest(IdempotencyKeys.defaults().key("b-2"), "fp", LEASE));
    mixed.remove(2);
    counting.executions.set(0);

    List<BatchClaimResult> second = store.claimAll(mixed);

    assertThat(counting.executions).hasValue(2);
    assertThat(second.get(0).result().status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(second.get(second.size() - 2).result().status()).isEqualTo(ClaimStatus.CLAIMED);
    assertThat(second.get(second.size() - 1).failure())
        .isInstanceOf(IdempotencyKeyReuseException.class);

    List<CompleteRequest> completions = new ArrayList<>();
    for (BatchClaimResult r : first) {
      completions.add(
          new CompleteRequest(
              r.request().key(),
              ((ClaimResult.Claimed) r.result()).token(),
              new Outcome.Success("1"),
              Duration.ofHours(1)));
    }
    counting.executions.set(0);

    List<BatchCompleteResult> completed = store.completeAll(completions);

    assertThat(counting.executions).as("one statement for 1000 completions").hasValue(1);
    assertThat(completed).hasSize(1000).allMatch(r -> r.failure() == null);
    assertThat(store.getResult(fresh.get(999).key())).contains(new Outcome.Success("1"));
  }

  @Test
  void withTheDatabaseClockLeasesExpireInRealTime() {
    PostgresIdempotencyStore store = store("clock_records");
    String key = IdempotencyKeys.defaults().key("short-lease-" + System.nanoTime());
    assertThat(store.claim(new ClaimRequest(key, null, Duration.ofMillis(300))).status())
        .isEqualTo(ClaimStatus.CLAIMED);
    assertThat(store.claim(new ClaimRequest(key, null, LEASE)).status())
        .isEqualTo(ClaimStatus.IN_PROGRESS);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                store.claim(new ClaimRequest(key, null, LEASE)) instanceof ClaimResult.Claimed c
                    && c.takeover());
  }

  @Test
  void hostileTableNamesAreRejectedAndHostileKeysAndOutcomesStoredVerbatim() throws Exception {
    for (String bad :
        List.of("x; DROP TABLE y", "Records", "1st", "a-b", "\"q\"", "a".repeat(53), "")) {
      assertThatThrownBy(() -> PostgresStoreConfig.builder(pool).table(bad))
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining("not a valid SQL identifier");
    }
    PostgresIdempotencyStore store = store("hostile_records");
    PostgresIdempotencyStore neighbour = store("neighbour_records");
    store.clear();
    String witness = IdempotencyKeys.defaults().key("witness-" + System.nanoTime());
    neighbour.complete(witness, claimed(neighbour, witness), new Outcome.Success("\"kept\""), TTL);

    String sql = IdempotencyKeys.defaults().key("'); DELETE FROM neighbour_records; --");
    String notUtf8 =
        new String(new byte[] {'"', (byte) 0xC3, (byte) 0x28, '"'}, StandardCharsets.ISO_8859_1);
    store.complete(sql, claimed(store, sql), new Outcome.Success(notUtf8), TTL);
    assertThat(store.getResult(sql)).contains(new Outcome.Success(notUtf8));

    String digested =
        IdempotencyKeys.custom().maxRawLength(2 << 20).build().key("k".repeat(1 << 20));
    store.complete(digested, claimed(store, digested), new Outcome.Success("1"), TTL);
    assertThat(store.getResult(digested)).contains(new Outcome.Success("1"));
    assertThatThrownBy(() -> store.claim(new ClaimRequest("a\nb", null, LEASE)))
        .isInstanceOf(InvalidIdempotencyKeyException.class);

    int envelope = JsonOutcomeCodec.of().encode(new Outcome.Success("")).length;
    String atLimit = "a".repeat(JsonOutcomeCodec.DEFAULT_MAX_BYTES - envelope);
    String big = IdempotencyKeys.defaults().key("big");
    ClaimToken t = claimed(store, big);
    assertThatThrownBy(() -> store.complete(big, t, new Outcome.Success(atLimit + "a"), TTL))
        .isInstanceOf(OutcomeTooLargeException.class);
    assertThat(store.claim(new ClaimRequest(big, null, LEASE)).status())
        .isEqualTo(ClaimStatus.IN_PROGRESS);
    store.complete(big, t, new Outcome.Success(atLimit), TTL);
    assertThat(store.getResult(big)).contains(new Outcome.Success(atLimit));

    store.clear();
    assertThat(neighbour.getResult(witness)).contains(new Outcome.Success("\"kept\""));
  }

  @Test
  void aMissingTableIsAConfigurationErrorUnlessTheStoreMayCreateIt() {
    PostgresIdempotencyStore strict =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(pool).table("never_created").build());
    assertThatThrownBy(() -> strict.getResult(IdempotencyKeys.defaults().key("x")))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("\"never_created\" does not exist")
        .hasMessageContaining("schema.sql");
    assertThat(strict.schemaSql())
        .contains("CREATE TABLE IF NOT EXISTS \"never_created\"")
        .doesNotContain("${");
  }

  @Test
  void purgeDeletesOnlyRowsExpiredLongerThanTheGrace() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    PostgresIdempotencyStore store =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(pool)
                .table("purge_records")
                .createTable(true)
                .clock(clock)
                .purgeGrace(Duration.ofMinutes(10))
                .build());
    store.clear();
    String done = IdempotencyKeys.defaults().key("done");
    String abandoned = IdempotencyKeys.defaults().key("abandoned");
    String live = IdempotencyKeys.defaults().key("live");
    store.complete(done, claimed(store, done), new Outcome.Success("1"), Duration.ofMinutes(5));
    store.claim(new ClaimRequest(abandoned, null, Duration.ofMinutes(1)));
    clock.advance(Duration.ofMinutes(12));
    store.claim(new ClaimRequest(live, null, LEASE));

    assertThat(store.purgeExpired()).isEqualTo(1);
    assertThat(rows("purge_records")).isEqualTo(2);
    clock.advance(Duration.ofMinutes(3));
    assertThat(store.purgeExpired()).isEqualTo(1);
    assertThat(rows("purge_records")).isEqualTo(1);
    store.schedulePurge(Duration.ofMillis(50));
    clock.advance(Duration.ofHours(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> rows("purge_records") == 0);
    store.close();
  }

  private static int rows(String table) throws Exception {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  void anUnreachableDatabaseIsUnavailable() {
    try (HikariDataSource nowhere =
        pool(
            "jdbc:postgresql://127.0.0.1:"
                + FreePorts.loopback()
                + "/postgres?user=app&password=s3cr3t",
            2,
            Duration.ofMillis(500))) {
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.of(
              PostgresStoreConfig.builder(nowhere).createTable(true).build());
      assertThatThrownBy(
              () -> store.claim(new ClaimRequest(IdempotencyKeys.defaults().key("x"), null, LEASE)))
          .isInstanceOf(IdempotencyStoreUnavailableException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t"));
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void anOutageFailsCallersTransientlyLeavesNoForbiddenStateAndTheSameStoreRecovers() {
    try (PostgresServer server = PostgresServer.start();
        HikariDataSource outagePool = pool(server.jdbcUrl(), 4, Duration.ofMillis(1000))) {
      PostgresIdempotencyStore store =
          PostgresIdempotencyStore.of(
              PostgresStoreConfig.builder(outagePool)
                  .table("outage_records")
                  .createTable(true)
                  .build());
      String before = IdempotencyKeys.defaults().key("completed-before-outage");
      store.complete(before, claimed(store, before), new Outcome.Success("\"durable\""), TTL);

      Map<String, String> completed = new HashMap<>();
      int unavailable = 0;
      for (int i = 0; i < 300; i++) {
        if (i == 100) {
          server.stop();
        }
        if (i == 120) {
          server.startAgain();
        }
        String key = IdempotencyKeys.defaults().key("outage-" + i);
        try {
          ClaimToken token = claimed(store, key);
          store.complete(key, token, new Outcome.Success(String.valueOf(i)), TTL);
          completed.put(key, String.valueOf(i));
        } catch (IdempotencyStoreUnavailableException e) {
          unavailable++;
        }
      }

      assertThat(unavailable).as("callers saw the outage").isPositive();
      assertThat(completed)
          .as("work resumed after the restart")
          .containsKey(IdempotencyKeys.defaults().key("outage-299"));
      assertThat(store.getResult(before)).contains(new Outcome.Success("\"durable\""));
      for (Map.Entry<String, String> c : completed.entrySet()) {
        assertThat(store.getResult(c.getKey())).contains(new Outcome.Success(c.getValue()));
      }
      for (int i = 0; i < 300; i++) {
        String key = IdempotencyKeys.defaults().key("outage-" + i);
        if (!completed.containsKey(key)) {
          assertThat(store.claim(new ClaimRequest(key, null, LEASE)).status())
              .as(
                  "an interrupted key is absent or still claimed, never completed with another outcome")
              .isIn(ClaimStatus.CLAIMED, ClaimStatus.IN_PROGRESS);
        }
      }
    }
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void severalProcessesRacingForTheSameKeysGetExactlyOneClaimPerKey() throws Exception {
    int keys = 10_000;
    List<List<String>> won =
        MultiProcessClaimRace.run(PostgresStoreFactory.class, PG.server().jdbcUrl(), 4, keys);

    MultiProcessClaimRace.assertOneClaimPerKey(won, keys);
  }
}
