package dev.siglo.store.postgres;

import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.StoreKeys;
import dev.siglo.consumer.store.StoredRecord;
import dev.siglo.consumer.support.Durations;
import dev.siglo.consumer.support.NamedThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyStore} on PostgreSQL through JDBC and any {@link javax.sql.DataSource} (use
 * a pool such as HikariCP: the store borrows a connection per operation and opens none itself).
 *
 * <p>One table (schema in the shipped {@code schema.sql}, created on demand with {@link
 * PostgresStoreConfig.Builder#createTable(boolean)}). Claims are one {@code INSERT ... ON CONFLICT
 * DO UPDATE ... WHERE expired} statement, so exactly one concurrent claimant wins; complete, fail
 * and renew are updates checked against the owner token. Expiry compares stored epoch millis with
 * the database clock ({@code statement_timestamp()}), unless a clock is injected (tests). {@link
 * #claimAll} is one statement over arrays ({@code unnest}) plus one read for the keys already
 * taken. {@link #purgeExpired()} deletes rows past expiry plus a grace; {@link #schedulePurge} runs
 * it periodically.
 *
 * <p>{@link TransactionalStep}s write their record in the same transaction as the user's own
 * writes. Connection failures become {@code IdempotencyStoreUnavailableException}. Thread-safe.
 */
public final class PostgresIdempotencyStore implements IdempotencyStore {
  private static final Logger log = LoggerFactory.getLogger(PostgresIdempotencyStore.class);
  private static final int CLAIM_ATTEMPTS = 5;
  private static final String LOCK_NOT_AVAILABLE = "55P03";

  private final PostgresStoreConfig config;
  private final Sql sql;
  private final String table;
  private final Object ddlLock = new Object();
  private volatile boolean tableReady;
  private volatile ScheduledExecutorService purger;
  // the partitioned layout's partitions and claims; null for the single table
  private final Partitions partitions;
  private final PartitionedClaims partitionedClaims;
  private volatile boolean partitionsReady;

  private PostgresIdempotencyStore(PostgresStoreConfig config) {
    this.config = config;
    this.table = config.qualifiedTable();
    this.sql = new Sql(table);
    this.tableReady = !config.createTable();
    boolean partitioned = config.partitionWidth() != null;
    this.partitions = partitioned ? new Partitions(config) : null;
    this.partitionedClaims = partitioned ? new PartitionedClaims(this, table, Sql.NOW) : null;
  }

  /**
   * Creates the store. Nothing is sent to the database until the first operation.
   *
   * @param config the settings
   * @return the store
   */
  public static PostgresIdempotencyStore of(PostgresStoreConfig config) {
    return new PostgresIdempotencyStore(Objects.requireNonNull(config, "config"));
  }

  /**
   * @return the schema SQL with this store's table and index names filled in
   */
  public String schemaSql() {
    String file = partitions == null ? "schema.sql" : "schema-partitioned.sql";
    try (InputStream in = PostgresIdempotencyStore.class.getResourceAsStream(file)) {
      String text =
          new String(Objects.requireNonNull(in, file).readAllBytes(), StandardCharsets.UTF_8);
      return text.replace("${table}", table)
          .replace("${index}", config.quotedIndex())
          .replace("${keyIndex}", config.quotedKeyIndex());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    String key = StoreKeys.requireValid(request.key());
    return run("claim", c -> claimOne(c, request, key));
  }

  /**
   * Claims on an autocommit connection: a row another session holds locked answers in progress
   * after {@link Sql#CLAIM_LOCK_WAIT_MS} at most.
   */
  ClaimResult claimOne(Connection c, ClaimRequest request, String key) throws SQLException {
    try {
      return claimIn(c, request, key, Duration.ofMillis(Sql.CLAIM_LOCK_WAIT_MS));
    } catch (SQLException e) {
      if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      return lockedElsewhere();
    }
  }

  /** The answer for a key whose row another session holds locked: someone is changing it now. */
  ClaimResult lockedElsewhere() {
    long now = config.clock() == null ? System.currentTimeMillis() : config.clock().millis();
    return new ClaimResult.InProgress(Instant.ofEpochMilli(now + Sql.CLAIM_LOCK_WAIT_MS));
  }

  /**
   * Claims on {@code c}, waiting at most {@code lockWait} for a row another session holds locked
   * ({@code 55P03} when it did not settle by then); a {@link TransactionalStep} claims in its own
   * transaction with its settle timeout.
   */
  ClaimResult claimIn(Connection c, ClaimRequest request, String key, Duration lockWait)
      throws SQLException {
    if (partitionedClaims != null) {
      ensurePartitionsFor(c, request.lease().toMillis());
      return partitionedClaims.claim(c, Map.of(key, request)).get(key).resultOrThrow();
    }
    ClaimToken token = ClaimToken.random();
    for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      try (PreparedStatement ps = c.prepareStatement(sql.claim)) {
        ps.setString(1, key);
        ps.setString(2, key);
        ps.setString(3, token.value());
        ps.setString(4, request.fingerprint());
        setNow(ps, 5);
        ps.setLong(6, request.lease().toMillis());
        ps.setInt(7, request.newDelivery() ? 1 : 0);
        ps.setString(8, lockTimeout(lockWait));
        setNow(ps, 9);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return new ClaimResult.Claimed(
                token,
                Instant.ofEpochMilli(rs.getLong(1)),
                rs.getBoolean(2),
                rs.getInt(3),
                rs.getInt(4));
          }
        }
      }
      try (PreparedStatement ps = c.prepareStatement(sql.read)) {
        setNow(ps, 1);
        ps.setString(2, key);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            ClaimResult live = liveAnswer(key, request, rs, 1);
            if (live != null) {
              return live;
            }
          }
        }
      }
      // released or expired between the two statements: claim again
    }
    throw new IdempotencyConflictException(
        "key '" + key + "' changed state " + CLAIM_ATTEMPTS + " times while being claimed");
  }

  /** The answer for a row read at column offset {@code col}, or null when the row is expired. */
  ClaimResult liveAnswer(String key, ClaimRequest request, ResultSet rs, int col)
      throws SQLException {
    String state = rs.getString(col);
    String fingerprint = rs.getString(col + 1);
    long lease = rs.getLong(col + 2);
    long retain = rs.getLong(col + 3);
    byte[] outcome = rs.getBytes(col + 4);
    long now = rs.getLong(col + 5);
    boolean completed = "C".equals(state);
    if (now >= (completed ? retain : lease)) {
      return null;
    }
    if (fingerprint != null
        && request.fingerprint() != null
        && !fingerprint.equals(request.fingerprint())) {
      throw new IdempotencyKeyReuseException(
          "key '" + key + "' was claimed before with a different payload fingerprint");
    }
    return completed
        ? new ClaimResult.Completed(config.codec().decode(outcome))
        : new ClaimResult.InProgress(Instant.ofEpochMilli(lease));
  }

  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    Map<String, ClaimRequest> valid = new HashMap<>();
    Map<ClaimRequest, RuntimeException> invalid = new HashMap<>();
    for (ClaimRequest r : requests) {
      try {
        valid.put(StoreKeys.requireValid(r.key()), r);
      } catch (InvalidIdempotencyKeyException e) {
        invalid.put(r, e);
      }
    }
    Map<String, BatchClaimResult> answers =
        valid.isEmpty() ? Map.of() : run("claimAll", c -> claimBatch(c, valid));
    List<BatchClaimResult> out = new ArrayList<>(requests.size());
    for (ClaimRequest r : requests) {
      out.add(
          invalid.containsKey(r)
              ? BatchClaimResult.failed(r, invalid.get(r))
              : answers.get(r.key()));
    }
    return out;
  }

  private Map<String, BatchClaimResult> claimBatch(Connection c, Map<String, ClaimRequest> requests)
      throws SQLException {
    if (partitionedClaims != null) {
      long lease = 0;
      for (ClaimRequest r : requests.values()) {
        lease = Math.max(lease, r.lease().toMillis());
      }
      ensurePartitionsFor(c, lease);
      return partitionedClaims.claim(c, requests);
    }
    int n = requests.size();
    String[] keys = new String[n];
    String[] tokens = new String[n];
    String[] fingerprints = new String[n];
    Long[] leases = new Long[n];
    Integer[] deliveries = new Integer[n];
    Map<String, ClaimToken> tokenOf = new HashMap<>();
    int i = 0;
    for (Map.Entry<String, ClaimRequest> e : requests.entrySet()) {
      ClaimToken token = ClaimToken.random();
      tokenOf.put(e.getKey(), token);
      keys[i] = e.getKey();
      tokens[i] = token.value();
      fingerprints[i] = e.getValue().fingerprint();
      leases[i] = e.getValue().lease().toMillis();
      deliveries[i] = e.getValue().newDelivery() ? 1 : 0;
      i++;
    }
    Map<String, BatchClaimResult> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql.claimAll)) {
      Array keyArray = c.createArrayOf("text", keys);
      ps.setArray(1, keyArray);
      ps.setArray(2, keyArray);
      ps.setArray(3, c.createArrayOf("text", tokens));
      ps.setArray(4, c.createArrayOf("text", fingerprints));
      ps.setArray(5, c.createArrayOf("bigint", leases));
      ps.setArray(6, c.createArrayOf("integer", deliveries));
      setNow(ps, 7);
      ps.setString(8, lockTimeout(Duration.ofMillis(Sql.CLAIM_LOCK_WAIT_MS)));
      setNow(ps, 9);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          ClaimRequest r = requests.get(key);
          out.put(
              key,
              BatchClaimResult.of(
                  r,
                  new ClaimResult.Claimed(
                      tokenOf.get(key),
                      Instant.ofEpochMilli(rs.getLong(3)),
                      rs.getBoolean(4),
                      rs.getInt(5),
                      rs.getInt(6))));
        }
      }
    } catch (SQLException e) {
      if (!LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
        throw e;
      }
      // a row of the batch is locked by another session: claim key by key, so only the locked
      // keys answer in progress and the others are claimed now
      out.clear();
      claimEach(c, requests, List.of(keys), out);
      return out;
    }
    if (out.size() == n) {
      return out;
    }
    List<String> taken = new ArrayList<>();
    for (String key : keys) {
      if (!out.containsKey(key)) {
        taken.add(key);
      }
    }
    try (PreparedStatement ps = c.prepareStatement(sql.readAll)) {
      setNow(ps, 1);
      ps.setArray(2, c.createArrayOf("text", taken.toArray(new String[0])));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          ClaimRequest r = requests.get(key);
          try {
            ClaimResult live = liveAnswer(key, r, rs, 2);
            if (live != null) {
              out.put(key, BatchClaimResult.of(r, live));
            }
          } catch (IdempotencyKeyReuseException e) {
            out.put(key, BatchClaimResult.failed(r, e));
          }
        }
      }
    }
    claimEach(c, requests, taken, out);
    return out;
  }

  /** Claims, one statement each, the keys of {@code keys} that {@code out} has no answer for. */
  private void claimEach(
      Connection c,
      Map<String, ClaimRequest> requests,
      List<String> keys,
      Map<String, BatchClaimResult> out)
      throws SQLException {
    for (String key : keys) {
      if (!out.containsKey(key)) {
        ClaimRequest r = requests.get(key);
        try {
          out.put(key, BatchClaimResult.of(r, claimOne(c, r, key)));
        } catch (IdempotencyKeyReuseException e) {
          out.put(key, BatchClaimResult.failed(r, e));
        }
      }
    }
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    StoreKeys.requireValid(key);
    Objects.requireNonNull(token, "token");
    Durations.requirePositive(retention, "retention");
    byte[] encoded = config.codec().encode(Objects.requireNonNull(outcome, "outcome"));
    int updated = run("complete", c -> completeIn(c, key, token, encoded, retention));
    if (updated == 0) {
      throw token.notHeldOn(key);
    }
  }

  int completeIn(Connection c, String key, ClaimToken token, byte[] encoded, Duration retention)
      throws SQLException {
    ensurePartitionsFor(c, retention.toMillis());
    try (PreparedStatement ps = c.prepareStatement(sql.complete)) {
      ps.setBytes(1, encoded);
      setNow(ps, 2);
      ps.setLong(3, retention.toMillis());
      ps.setString(4, key);
      ps.setString(5, token.value());
      return ps.executeUpdate();
    }
  }

  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    BatchCompleteResult[] out = new BatchCompleteResult[requests.size()];
    List<Integer> sent = new ArrayList<>(requests.size());
    List<byte[]> encoded = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      CompleteRequest r = requests.get(i);
      try {
        StoreKeys.requireValid(r.key());
        encoded.add(config.codec().encode(r.outcome()));
        sent.add(i);
      } catch (InvalidIdempotencyKeyException | OutcomeTooLargeException e) {
        out[i] = BatchCompleteResult.failed(r, e);
      }
    }
    Set<String> completed =
        sent.isEmpty()
            ? Set.of()
            : run("completeAll", c -> completeBatch(c, requests, sent, encoded));
    for (int i : sent) {
      CompleteRequest r = requests.get(i);
      out[i] =
          completed.contains(r.key())
              ? BatchCompleteResult.done(r)
              : BatchCompleteResult.failed(r, r.token().notHeldOn(r.key()));
    }
    return List.of(out);
  }

  private Set<String> completeBatch(
      Connection c, List<CompleteRequest> requests, List<Integer> sent, List<byte[]> encoded)
      throws SQLException {
    int n = sent.size();
    String[] keys = new String[n];
    String[] tokens = new String[n];
    Long[] retentions = new Long[n];
    long longest = 0;
    for (int s = 0; s < n; s++) {
      CompleteRequest r = requests.get(sent.get(s));
      keys[s] = r.key();
      tokens[s] = r.token().value();
      retentions[s] = r.retention().toMillis();
      longest = Math.max(longest, retentions[s]);
    }
    ensurePartitionsFor(c, longest);
    try (PreparedStatement ps = c.prepareStatement(sql.completeAll)) {
      setNow(ps, 1);
      ps.setArray(2, c.createArrayOf("text", keys));
      ps.setArray(3, c.createArrayOf("text", tokens));
      ps.setArray(4, c.createArrayOf("bytea", encoded.toArray(new byte[0][])));
      ps.setArray(5, c.createArrayOf("bigint", retentions));
      Set<String> done = new HashSet<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          done.add(rs.getString(1));
        }
      }
      return done;
    }
  }

  /** Claims and completions are single statements over any number of keys. */
  @Override
  public boolean prefersBatches() {
    return true;
  }

  @Override
  public void fail(String key, ClaimToken token) {
    release("fail", sql.fail, true, key, token);
  }

  @Override
  public void forget(String key, ClaimToken token) {
    release("forget", sql.forget, false, key, token);
  }

  private void release(
      String operation, String statement, boolean withNow, String key, ClaimToken token) {
    StoreKeys.requireValid(key);
    Objects.requireNonNull(token, "token");
    int changed =
        run(
            operation,
            c -> {
              if (withNow) {
                ensurePartitionsFor(c, Sql.RELEASED_MEMORY_MS);
              }
              try (PreparedStatement ps = c.prepareStatement(statement)) {
                int p = 1;
                if (withNow) {
                  setNow(ps, p++);
                }
                ps.setString(p++, key);
                ps.setString(p, token.value());
                return ps.executeUpdate();
              }
            });
    if (changed == 0) {
      throw token.notHeldOn(key);
    }
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    StoreKeys.requireValid(key);
    Objects.requireNonNull(token, "token");
    Durations.requirePositive(lease, "lease");
    Long until =
        run(
            "renew",
            c -> {
              ensurePartitionsFor(c, lease.toMillis());
              try (PreparedStatement ps = c.prepareStatement(sql.renew)) {
                setNow(ps, 1);
                ps.setLong(2, lease.toMillis());
                ps.setString(3, key);
                ps.setString(4, token.value());
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? rs.getLong(1) : null;
                }
              }
            });
    if (until == null) {
      throw token.notHeldOn(key);
    }
    return Instant.ofEpochMilli(until);
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    StoreKeys.requireValid(key);
    byte[] outcome =
        run(
            "getResult",
            c -> {
              try (PreparedStatement ps = c.prepareStatement(sql.get)) {
                ps.setString(1, key);
                setNow(ps, 2);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? rs.getBytes(1) : null;
                }
              }
            });
    return outcome == null ? Optional.empty() : Optional.of(config.codec().decode(outcome));
  }

  @Override
  public Optional<StoredRecord> inspect(String key) {
    StoreKeys.requireValid(key);
    return run(
        "inspect",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.inspect)) {
            setNow(ps, 1);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<StoredRecord>empty();
              }
              String token = rs.getString(2);
              StoredRecord.State state =
                  "C".equals(rs.getString(1))
                      ? StoredRecord.State.COMPLETED
                      : token == null
                          ? StoredRecord.State.RELEASED
                          : StoredRecord.State.IN_PROGRESS;
              long lease = rs.getLong(3);
              boolean hasLease = !rs.wasNull() && state == StoredRecord.State.IN_PROGRESS;
              long retain = rs.getLong(4);
              boolean hasRetain = !rs.wasNull() && state == StoredRecord.State.COMPLETED;
              byte[] outcome = rs.getBytes(7);
              return Optional.of(
                  new StoredRecord(
                      state,
                      token,
                      hasLease ? Instant.ofEpochMilli(lease) : null,
                      hasRetain ? Instant.ofEpochMilli(retain) : null,
                      rs.getInt(5),
                      rs.getInt(6),
                      state == StoredRecord.State.COMPLETED && outcome != null
                          ? Optional.of(config.codec().decode(outcome))
                          : Optional.empty(),
                      Instant.ofEpochMilli(rs.getLong(8))));
            }
          }
        });
  }

  @Override
  public StoredRecord.Removal remove(String key) {
    StoreKeys.requireValid(key);
    return run(
        "remove",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.remove)) {
            ps.setString(1, key);
            setNow(ps, 2);
            ps.setString(3, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              if (rs.getLong(1) > 0) {
                return StoredRecord.Removal.REMOVED;
              }
              return rs.getLong(2) > 0 ? StoredRecord.Removal.HELD : StoredRecord.Removal.ABSENT;
            }
          }
        });
  }

  /** Deletes every row of this store's table (tests). */
  @Override
  public void clear() {
    run(
        "clear",
        c -> {
          try (Statement s = c.createStatement()) {
            return s.executeUpdate(sql.clear);
          }
        });
  }

  /**
   * Removes the records whose lease or retention ended more than the purge grace ago. On the single
   * table, deletes them in chunks; on the partitioned layout ({@link
   * PostgresStoreConfig.Builder#partitioned}), drops every partition whose rows all ended that long
   * ago (no {@code DELETE}) and creates the partitions ahead of now.
   *
   * @return how many rows were deleted (single table), or partitions dropped (partitioned)
   */
  public int purgeExpired() {
    if (partitions != null) {
      return run(
          "purge", c -> partitions.maintain(c, databaseNow(c), config.purgeGrace().toMillis()));
    }
    return run(
        "purge",
        c -> {
          int total = 0;
          int deleted;
          do {
            try (PreparedStatement ps = c.prepareStatement(sql.purge)) {
              setNow(ps, 1);
              ps.setLong(2, config.purgeGrace().toMillis());
              deleted = ps.executeUpdate();
            }
            total += deleted;
          } while (deleted == 10_000);
          return total;
        });
  }

  /**
   * @return the partitioned layout's partitions, oldest first: quoted name and upper bound in epoch
   *     millis (tests and operators)
   * @throws IllegalStateException on the single table
   */
  List<String[]> partitions() {
    if (partitions == null) {
      throw new IllegalStateException(table + " is not partitioned");
    }
    return run("list partitions", partitions::list);
  }

  /** Now in the store's clock: the injected one, or the database's. */
  private long databaseNow(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + Sql.NOW)) {
      setNow(ps, 1);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * On the partitioned layout, makes sure a row expiring {@code aheadMillis} from now has a
   * partition (a memory check once it has); nothing on the single table.
   *
   * @param c the connection the write will use: the DDL runs on it when it is in autocommit, else
   *     (a caller's transaction) on a connection of its own
   */
  void ensurePartitionsFor(Connection c, long aheadMillis) throws SQLException {
    if (partitions != null) {
      long now = config.clock() == null ? System.currentTimeMillis() : config.clock().millis();
      partitions.ensureFor(c, now, aheadMillis);
    }
  }

  /**
   * Runs {@link #purgeExpired()} every {@code interval} on a named daemon thread until {@link
   * #close()}; failures are logged and retried at the next interval.
   *
   * @param interval the delay between purges; positive
   */
  public synchronized void schedulePurge(Duration interval) {
    Durations.requirePositive(interval, "interval");
    if (purger != null) {
      throw new IllegalStateException("purging is already scheduled");
    }
    purger =
        Executors.newSingleThreadScheduledExecutor(
            NamedThreads.daemon("siglo-postgres-purge", false));
    purger.scheduleWithFixedDelay(
        () -> {
          try {
            int n = purgeExpired();
            log.debug("purged {} expired idempotency records from {}", n, table);
          } catch (RuntimeException e) {
            log.warn("purging expired idempotency records from {} failed: {}", table, e.toString());
          }
        },
        interval.toMillis(),
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Stops a scheduled purge, and closes the data source when {@link
   * PostgresStoreConfig#closeDataSourceOnClose()} says so. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (purger != null) {
      purger.shutdownNow();
      purger = null;
    }
    if (config.closeDataSourceOnClose() && config.dataSource() instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        log.warn("closing the data source of {} failed: {}", table, e.toString());
      }
    }
  }

  @Override
  public String toString() {
    return "PostgresIdempotencyStore[" + config + "]";
  }

  PostgresStoreConfig config() {
    return config;
  }

  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs work on a borrowed autocommit connection, mapping failures. On the partitioned layout, a
   * write that found no partition for its row creates it and runs again (a few times: a batch may
   * need several).
   */
  <T> T run(String operation, SqlWork<T> work) {
    for (int attempt = 0; ; attempt++) {
      try (Connection c = config.dataSource().getConnection()) {
        ensureTable(c);
        if (partitions != null && !partitionsReady) {
          partitions.maintain(c, databaseNow(c), config.purgeGrace().toMillis());
          partitionsReady = true;
        }
        return work.run(c);
      } catch (SQLException e) {
        try {
          if (partitions != null && attempt < 4 && partitions.createFor(e)) {
            continue;
          }
        } catch (SQLException creating) {
          e.addSuppressed(creating);
        }
        throw SqlFailures.map(operation, table, e);
      }
    }
  }

  /**
   * Creates the table and index once, when allowed; concurrent creators elsewhere are tolerated.
   */
  void ensureTable(Connection c) throws SQLException {
    if (tableReady) {
      return;
    }
    synchronized (ddlLock) {
      if (tableReady) {
        return;
      }
      boolean autoCommit = c.getAutoCommit();
      try (Statement s = c.createStatement()) {
        for (String statement : schemaSql().split(";")) {
          String body =
              statement
                  .lines()
                  .filter(l -> !l.strip().startsWith("--"))
                  .reduce("", (a, b) -> a + "\n" + b)
                  .strip();
          if (!body.isEmpty()) {
            try {
              s.execute(body);
            } catch (SQLException e) {
              if (!"23505".equals(e.getSQLState()) && !"42P07".equals(e.getSQLState())) {
                throw e;
              }
            }
          }
        }
        if (!autoCommit) {
          c.commit();
        }
      }
      tableReady = true;
    }
  }

  /** A duration as a PostgreSQL setting's value, in whole milliseconds (at least 1). */
  static String lockTimeout(Duration wait) {
    return Math.max(1, wait.toMillis()) + "ms";
  }

  void setNow(PreparedStatement ps, int index) throws SQLException {
    if (config.clock() == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, config.clock().millis());
    }
  }
}
