package dev.siglo.store.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The partitions of the partitioned layout ({@link PostgresStoreConfig.Builder#partitioned}): one
 * per span of expiry times ({@code [start, start + width)}, starts multiples of the width), created
 * ahead of the writes that need them and dropped once wholly expired. DDL runs on connections of
 * its own (autocommit, a short lock timeout), never inside a caller's transaction. Several
 * processes may maintain one table: creating an existing partition or dropping a dropped one is not
 * an error. Thread-safe.
 */
final class Partitions {
  private static final Pattern UPPER_BOUND = Pattern.compile("TO \\('?(-?\\d+)'?\\)");
  private static final Pattern FAILING_VALUE = Pattern.compile("\\) = \\((-?\\d+)\\)");
  // DDL waits at most this for the table's lock (queries queue behind a waiting DDL)
  private static final String DDL_LOCK_TIMEOUT = "SET lock_timeout = '2s'";
  private static final String RESET_LOCK_TIMEOUT = "RESET lock_timeout";

  private final PostgresStoreConfig config;
  private final long width;
  // partition starts known to exist (created here or found existing)
  private final Set<Long> known = ConcurrentHashMap.newKeySet();

  Partitions(PostgresStoreConfig config) {
    this.config = config;
    this.width = config.partitionWidth().toMillis();
  }

  /**
   * Makes sure the partitions exist for rows expiring {@code ahead} millis from {@code now}: that
   * one and its neighbours (so a database clock a little off this process's is covered).
   *
   * @param c the caller's connection, used for the DDL when it is in autocommit (else one of its
   *     own is borrowed: DDL never runs inside a caller's transaction)
   */
  void ensureFor(Connection c, long now, long ahead) throws SQLException {
    long start = start(now + ahead);
    for (long s = start - width; s <= start + width; s += width) {
      if (!known.contains(s)) {
        create(c != null && c.getAutoCommit() ? c : null, s);
      }
    }
  }

  /**
   * After a write failed for want of a partition (SQLState 23514, "no partition of relation ...
   * found for row"): creates the partition of the failing row's expiry, read from the error.
   *
   * @return whether the failure was that and a partition was created (the write may be retried)
   */
  boolean createFor(SQLException e) throws SQLException {
    // the driver puts the server's detail ("Partition key of the failing row contains (...) =
    // (<value>).") in the message; the store speaks plain JDBC, so it is read from there
    String message = e.getMessage();
    if (!"23514".equals(e.getSQLState()) || message == null) {
      return false;
    }
    Matcher m = FAILING_VALUE.matcher(message);
    if (!m.find()) {
      return false;
    }
    create(null, start(Long.parseLong(m.group(1))));
    return true;
  }

  /**
   * Creates the partitions from just before {@code now} to {@link
   * PostgresStoreConfig#partitionsAhead()} ahead, then drops every partition whose upper bound is
   * more than {@code grace} millis before {@code now}: all its rows expired that long ago.
   *
   * @param c an autocommit connection of the store's
   * @return how many partitions were dropped
   */
  int maintain(Connection c, long now, long grace) throws SQLException {
    long first = start(now) - width;
    for (int i = 0; i <= config.partitionsAhead() + 1; i++) {
      long s = first + i * width;
      if (!known.contains(s)) {
        create(c, s);
      }
    }
    int dropped = 0;
    try (Statement s = c.createStatement()) {
      s.execute(DDL_LOCK_TIMEOUT);
      try {
        dropped = dropExpired(c, s, now, grace);
      } finally {
        s.execute(RESET_LOCK_TIMEOUT);
      }
    }
    return dropped;
  }

  private int dropExpired(Connection c, Statement s, long now, long grace) throws SQLException {
    int dropped = 0;
    for (String[] partition : list(c)) {
      long upper = Long.parseLong(partition[1]);
      if (upper + grace > now) {
        continue;
      }
      try {
        s.execute("DROP TABLE IF EXISTS " + partition[0]);
        dropped++;
        known.remove(upper - width);
      } catch (SQLException e) {
        if (!"55P03".equals(e.getSQLState())) {
          throw e;
        }
        // busy past the lock timeout: dropped by the next maintenance
      }
    }
    return dropped;
  }

  /**
   * @return the table's partitions: quoted name and upper bound, oldest first
   */
  List<String[]> list(Connection c) throws SQLException {
    List<String[]> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT p.oid::regclass::text, pg_get_expr(p.relpartbound, p.oid) FROM pg_inherits i"
                + " JOIN pg_class p ON p.oid = i.inhrelid WHERE i.inhparent = ?::regclass"
                + " ORDER BY 2")) {
      ps.setString(1, config.qualifiedTable());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String bound = rs.getString(2);
          if (bound == null) {
            continue; // dropped while this read the catalog: no longer a partition
          }
          Matcher m = UPPER_BOUND.matcher(bound);
          if (m.find()) {
            out.add(new String[] {rs.getString(1), m.group(1)});
          }
        }
      }
    }
    out.sort((a, b) -> Long.compare(Long.parseLong(a[1]), Long.parseLong(b[1])));
    return out;
  }

  /** Forgets which partitions exist (after the table was emptied or dropped). */
  void forget() {
    known.clear();
  }

  private long start(long expiry) {
    return Math.floorDiv(expiry, width) * width;
  }

  /**
   * Creates one partition on {@code c} (an autocommit connection of the caller's), or on a
   * connection of its own when {@code c} is null.
   */
  private void create(Connection c, long start) throws SQLException {
    if (c == null) {
      try (Connection own = config.dataSource().getConnection()) {
        own.setAutoCommit(true);
        create(own, start);
      }
      return;
    }
    try (Statement s = c.createStatement()) {
      s.execute(DDL_LOCK_TIMEOUT);
      try {
        s.execute(
            "CREATE TABLE IF NOT EXISTS "
                + config.qualifiedPartition(start)
                + " PARTITION OF "
                + config.qualifiedTable()
                + " FOR VALUES FROM ("
                + start
                + ") TO ("
                + (start + width)
                + ")");
      } finally {
        s.execute(RESET_LOCK_TIMEOUT);
      }
    } catch (SQLException e) {
      // 42P07, 23505: another process created it meanwhile; 42P17: an existing partition covers it
      if (!"42P07".equals(e.getSQLState())
          && !"23505".equals(e.getSQLState())
          && !"42P17".equals(e.getSQLState())) {
        throw e;
      }
    }
    known.add(start);
  }

  @Override
  public String toString() {
    return "Partitions[" + config.qualifiedTable() + " every " + config.partitionWidth() + "]";
  }
}
