package dev.siglo.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The history the checker reads: one row in PostgreSQL's {@code effects} table per side effect a
 * handler performed (scenario, effect key, message coordinates, process id, time), and one row in
 * {@code seen} each time the engine finished a message (processed, settled as a duplicate, declined
 * or dead-lettered), so a message whose offset was committed without ever being finished shows up
 * as lost even when another copy of its key had the effect; and one row in {@code pauses} each time
 * a consumer paused its intake and resumed (when, and how many store calls it made meanwhile).
 */
public final class Effects {
  static final String DDL =
      "CREATE TABLE IF NOT EXISTS effects (id BIGSERIAL PRIMARY KEY, scenario TEXT NOT NULL,"
          + " effect_key TEXT NOT NULL, coordinates TEXT NOT NULL, pid BIGINT NOT NULL,"
          + " at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp());"
          + " CREATE TABLE IF NOT EXISTS seen (scenario TEXT NOT NULL, coordinates TEXT NOT NULL);"
          + " CREATE TABLE IF NOT EXISTS pauses (scenario TEXT NOT NULL, pid BIGINT NOT NULL,"
          + " paused_at TIMESTAMPTZ NOT NULL, resumed_at TIMESTAMPTZ NOT NULL,"
          + " store_calls BIGINT NOT NULL)";

  /**
   * One pause of a consumer's intake.
   *
   * @param pausedAt when it paused
   * @param resumedAt when it resumed
   * @param storeCalls idempotency-store calls it made in between (probes, renewals, releases)
   */
  record Pause(Instant pausedAt, Instant resumedAt, long storeCalls) {}

  private final DataSource db;

  /**
   * @param db the database holding the effects table (created when missing)
   */
  public Effects(DataSource db) {
    this.db = db;
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute(DDL);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the effects table", e);
    }
  }

  /** Writes one effect on {@code c} (inside the caller's transaction, or auto-committed). */
  static void write(Connection c, String scenario, String key, String coordinates)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO effects (scenario, effect_key, coordinates, pid) VALUES (?, ?, ?, ?)")) {
      ps.setString(1, scenario);
      ps.setString(2, key);
      ps.setString(3, coordinates);
      ps.setLong(4, ProcessHandle.current().pid());
      ps.executeUpdate();
    }
  }

  /** Writes one effect in its own auto-committed statement. */
  void write(String scenario, String key, String coordinates) throws SQLException {
    try (Connection c = db.getConnection()) {
      write(c, scenario, key, coordinates);
    }
  }

  /** Records that the engine finished the message at {@code coordinates}. */
  void seen(String scenario, String coordinates) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO seen (scenario, coordinates) VALUES (?, ?)")) {
      ps.setString(1, scenario);
      ps.setString(2, coordinates);
      ps.executeUpdate();
    }
  }

  /** Records one pause of this process's intake. */
  void paused(String scenario, Pause pause) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO pauses (scenario, pid, paused_at, resumed_at, store_calls)"
                    + " VALUES (?, ?, ?, ?, ?)")) {
      ps.setString(1, scenario);
      ps.setLong(2, ProcessHandle.current().pid());
      ps.setTimestamp(3, Timestamp.from(pause.pausedAt()));
      ps.setTimestamp(4, Timestamp.from(pause.resumedAt()));
      ps.setLong(5, pause.storeCalls());
      ps.executeUpdate();
    }
  }

  /**
   * @return the pauses of a scenario's consumers, in the order they began
   */
  java.util.List<Pause> pauses(String scenario) {
    java.util.List<Pause> out = new java.util.ArrayList<>();
    query(
        "SELECT paused_at, resumed_at, store_calls FROM pauses WHERE scenario = ?"
            + " ORDER BY paused_at",
        scenario,
        rs ->
            out.add(
                new Pause(
                    rs.getTimestamp(1).toInstant(),
                    rs.getTimestamp(2).toInstant(),
                    rs.getLong(3))));
    return out;
  }

  /**
   * @return the coordinates of every message finished in a scenario
   */
  java.util.Set<String> seen(String scenario) {
    java.util.Set<String> out = new java.util.HashSet<>();
    query(
        "SELECT DISTINCT coordinates FROM seen WHERE scenario = ?",
        scenario,
        rs -> out.add(rs.getString(1)));
    return out;
  }

  /**
   * @return effects per key of a scenario
   */
  Map<String, Integer> perKey(String scenario) {
    Map<String, Integer> out = new HashMap<>();
    query(
        "SELECT effect_key, count(*) FROM effects WHERE scenario = ? GROUP BY effect_key",
        scenario,
        rs -> out.put(rs.getString(1), rs.getInt(2)));
    return out;
  }

  /**
   * @return effects of a scenario written in [from, to)
   */
  long between(String scenario, Instant from, Instant to) {
    long[] n = {0};
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM effects WHERE scenario = ? AND at >= ? AND at < ?")) {
      ps.setString(1, scenario);
      ps.setTimestamp(2, Timestamp.from(from));
      ps.setTimestamp(3, Timestamp.from(to));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        n[0] = rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the effects", e);
    }
    return n[0];
  }

  /**
   * @return how many distinct processes wrote effects of a scenario
   */
  int processes(String scenario) {
    int[] n = {0};
    query(
        "SELECT count(DISTINCT pid) FROM effects WHERE scenario = ?",
        scenario,
        rs -> n[0] = rs.getInt(1));
    return n[0];
  }

  /**
   * @param applicationName a consumer process's sessions' name ({@link
   *     FaultConsumerMain#applicationName})
   * @return how many of its transactions are open and waiting on it (a frozen process's)
   */
  int openTransactions(String applicationName) {
    int[] n = {0};
    query(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"
            + " AND state LIKE 'idle in transaction%'",
        applicationName, rs -> n[0] = rs.getInt(1));
    return n[0];
  }

  /** A write to the history. */
  interface Write {
    void run() throws SQLException;
  }

  /**
   * Runs {@code write}, retrying every 500 ms for up to 30 s while the database is down (the
   * store-outage scenarios stop the PostgreSQL that holds the history too).
   */
  static void retrying(String what, Write write) {
    for (int attempt = 1; ; attempt++) {
      try {
        write.run();
        return;
      } catch (SQLException e) {
        if (attempt == 60) {
          throw new IllegalStateException("cannot " + what, e);
        }
        try {
          Thread.sleep(500); // the database is down: retry, as a real effect would
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted: cannot " + what, e);
        }
      }
    }
  }

  private interface Row {
    void accept(ResultSet rs) throws SQLException;
  }

  private void query(String sql, String scenario, Row row) {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, scenario);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row.accept(rs);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the effects", e);
    }
  }
}
