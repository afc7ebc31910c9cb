package dev.siglo.store.postgres;

import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Claims on the partitioned layout, which has no primary key to conflict on: in one transaction,
 * the claimant takes a transaction-scoped advisory lock on each key (tries it, in its own
 * transaction: a key locked elsewhere answers in progress; waits for it, in key order, in a {@link
 * TransactionalStep}'s), reads the keys' rows with a fresh snapshot, answers the live ones, deletes
 * the expired or released ones it read (fenced on their token, lease and retention, which every
 * other writer changes, so a row completed or renewed meanwhile is not deleted but read again) and
 * inserts the new claims, with the counts carried over as the single table's upsert does. Only
 * claimants take the locks; the token-checked updates (complete, renew, fail) need none. Runs in
 * the caller's transaction when it has one (a {@link TransactionalStep}), else in its own.
 */
final class PartitionedClaims {
  private static final int ATTEMPTS = 5;

  private final PostgresIdempotencyStore store;
  private final String lock;
  private final String tryLock;
  private final String read;
  private final String delete;
  private final String insert;

  PartitionedClaims(PostgresIdempotencyStore store, String table, String now) {
    this.store = store;
    this.lock =
        "SELECT pg_advisory_xact_lock(hashtextextended(? || k, 0)) FROM"
            + " (SELECT DISTINCT k FROM unnest(?::text[]) AS u(k) ORDER BY k) s";
    this.tryLock =
        "SELECT k, pg_try_advisory_xact_lock(hashtextextended(? || k, 0)) FROM"
            + " (SELECT DISTINCT k FROM unnest(?::text[]) AS u(k)) s";
    this.read =
        "SELECT idem_key, state, fingerprint, lease_until_ms, retain_until_ms, outcome, "
            + now
            + ", owner_token, deliveries, takeovers FROM "
            + table
            + " WHERE idem_key = ANY(?)";
    this.delete =
        "DELETE FROM "
            + table
            + " r USING unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[])"
            + " AS o(k, tok, lease, ret) WHERE r.idem_key = o.k"
            + " AND r.owner_token IS NOT DISTINCT FROM o.tok"
            + " AND r.lease_until_ms IS NOT DISTINCT FROM o.lease"
            + " AND r.retain_until_ms IS NOT DISTINCT FROM o.ret RETURNING r.idem_key";
    this.insert =
        "INSERT INTO "
            + table
            + " (idem_key, state, owner_token, fingerprint, lease_until_ms, retain_until_ms,"
            + " outcome, deliveries, takeovers)"
            + " SELECT i.k, 'P', i.tok, i.fp, n.now + i.lease, NULL, NULL, i.d, i.x"
            + " FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::int[], ?::int[])"
            + " AS i(k, tok, fp, lease, d, x) CROSS JOIN (SELECT "
            + now
            + " AS now) n RETURNING idem_key, lease_until_ms";
  }

  /** A row read under the lock that is expired or released: what to fence on and carry over. */
  private record Stale(String token, Long lease, Long retain, boolean inProgress, int d, int x) {}

  /**
   * Claims every key of {@code requests} (valid keys, one request each).
   *
   * @return an answer per key
   */
  Map<String, BatchClaimResult> claim(Connection c, Map<String, ClaimRequest> requests)
      throws SQLException {
    boolean own = c.getAutoCommit();
    if (own) {
      c.setAutoCommit(false);
    }
    try {
      Map<String, BatchClaimResult> out = claimLocked(c, requests, own);
      if (own) {
        c.commit();
      }
      return out;
    } catch (SQLException | RuntimeException e) {
      if (own) {
        c.rollback();
      }
      throw e;
    } finally {
      if (own) {
        c.setAutoCommit(true);
      }
    }
  }

  /**
   * Locks the keys and claims them. In its own transaction the claimant only tries each lock: a key
   * whose lock another transaction holds (a {@link TransactionalStep}'s, perhaps of a frozen
   * process) answers in progress at once and holds back none of the others. In the caller's
   * transaction it waits, bounded by that transaction's {@code lock_timeout}.
   */
  private Map<String, BatchClaimResult> claimLocked(
      Connection c, Map<String, ClaimRequest> requests, boolean own) throws SQLException {
    Set<String> pending = new TreeSet<>(requests.keySet());
    Map<String, BatchClaimResult> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(own ? tryLock : lock)) {
      ps.setString(1, store.config().qualifiedTable() + ":");
      ps.setArray(2, c.createArrayOf("text", pending.toArray(new String[0])));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          // each row is one lock taken, or (trying) one key and whether its lock was taken
          if (own && !rs.getBoolean(2)) {
            String key = rs.getString(1);
            out.put(key, BatchClaimResult.of(requests.get(key), store.lockedElsewhere()));
          }
        }
      }
    }
    pending.removeAll(out.keySet());
    for (int attempt = 0; attempt < ATTEMPTS && !pending.isEmpty(); attempt++) {
      Map<String, Stale> stale = new HashMap<>();
      Set<String> fresh = new HashSet<>(pending);
      try (PreparedStatement ps = c.prepareStatement(read)) {
        store.setNow(ps, 1);
        ps.setArray(2, c.createArrayOf("text", pending.toArray(new String[0])));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            String key = rs.getString(1);
            fresh.remove(key);
            ClaimRequest r = requests.get(key);
            try {
              ClaimResult live = store.liveAnswer(key, r, rs, 2);
              if (live != null) {
                out.put(key, BatchClaimResult.of(r, live));
              } else {
                stale.put(
                    key,
                    new Stale(
                        rs.getString(8),
                        rs.getObject(4, Long.class),
                        rs.getObject(5, Long.class),
                        "P".equals(rs.getString(2)),
                        rs.getInt(9),
                        rs.getInt(10)));
              }
            } catch (IdempotencyKeyReuseException e) {
              out.put(key, BatchClaimResult.failed(r, e));
            }
          }
        }
      }
      Map<String, Stale> claimable = new HashMap<>();
      fresh.forEach(k -> claimable.put(k, null));
      for (String key : deleteFenced(c, stale)) {
        claimable.put(key, stale.get(key));
      }
      insert(c, requests, claimable, out);
      pending.removeAll(out.keySet());
    }
    for (String key : pending) {
      out.put(
          key,
          BatchClaimResult.failed(
              requests.get(key),
              new IdempotencyConflictException(
                  "key '" + key + "' changed state " + ATTEMPTS + " times while being claimed")));
    }
    return out;
  }

  /** Deletes the stale rows still as they were read; answers the keys deleted. */
  private Set<String> deleteFenced(Connection c, Map<String, Stale> stale) throws SQLException {
    if (stale.isEmpty()) {
      return Set.of();
    }
    List<String> keys = new ArrayList<>(stale.keySet());
    String[] tokens = new String[keys.size()];
    Long[] leases = new Long[keys.size()];
    Long[] retains = new Long[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      Stale s = stale.get(keys.get(i));
      tokens[i] = s.token();
      leases[i] = s.lease();
      retains[i] = s.retain();
    }
    Set<String> deleted = new HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(delete)) {
      ps.setArray(1, c.createArrayOf("text", keys.toArray(new String[0])));
      ps.setArray(2, c.createArrayOf("text", tokens));
      ps.setArray(3, c.createArrayOf("bigint", leases));
      ps.setArray(4, c.createArrayOf("bigint", retains));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          deleted.add(rs.getString(1));
        }
      }
    }
    return deleted;
  }

  /**
   * Inserts a claim for each key of {@code claimable}, carrying the counts of the row it replaces
   * (null: none, or one completed and expired).
   */
  private void insert(
      Connection c,
      Map<String, ClaimRequest> requests,
      Map<String, Stale> claimable,
      Map<String, BatchClaimResult> out)
      throws SQLException {
    if (claimable.isEmpty()) {
      return;
    }
    int n = claimable.size();
    String[] keys = new String[n];
    String[] tokens = new String[n];
    String[] fingerprints = new String[n];
    Long[] leases = new Long[n];
    Integer[] deliveries = new Integer[n];
    Integer[] takeovers = new Integer[n];
    Map<String, ClaimToken> tokenOf = new HashMap<>();
    Map<String, Integer> position = new HashMap<>();
    int i = 0;
    for (Map.Entry<String, Stale> e : claimable.entrySet()) {
      position.put(e.getKey(), i);
      ClaimRequest r = requests.get(e.getKey());
      Stale old = e.getValue();
      boolean carried = old != null && old.inProgress();
      ClaimToken token = ClaimToken.random();
      tokenOf.put(e.getKey(), token);
      keys[i] = e.getKey();
      tokens[i] = token.value();
      fingerprints[i] = r.fingerprint();
      leases[i] = r.lease().toMillis();
      deliveries[i] = (carried ? old.d() : 0) + (r.newDelivery() ? 1 : 0);
      takeovers[i] = !carried ? 0 : old.token() == null ? old.x() : old.x() + 1;
      i++;
    }
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      Array keyArray = c.createArrayOf("text", keys);
      ps.setArray(1, keyArray);
      ps.setArray(2, c.createArrayOf("text", tokens));
      ps.setArray(3, c.createArrayOf("text", fingerprints));
      ps.setArray(4, c.createArrayOf("bigint", leases));
      ps.setArray(5, c.createArrayOf("integer", deliveries));
      ps.setArray(6, c.createArrayOf("integer", takeovers));
      store.setNow(ps, 7);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          Stale old = claimable.get(key);
          int at = position.get(key);
          out.put(
              key,
              BatchClaimResult.of(
                  requests.get(key),
                  new ClaimResult.Claimed(
                      tokenOf.get(key),
                      Instant.ofEpochMilli(rs.getLong(2)),
                      old != null && old.inProgress() && old.token() != null,
                      Math.max(1, deliveries[at]),
                      takeovers[at])));
        }
      }
    }
  }

  @Override
  public String toString() {
    return "PartitionedClaims[" + store.config().qualifiedTable() + "]";
  }
}
