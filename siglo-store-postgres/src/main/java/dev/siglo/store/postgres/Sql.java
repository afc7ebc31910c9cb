package dev.siglo.store.postgres;

/**
 * The store's SQL, built once from the validated, quoted table name. Every value is a bound
 * parameter. {@code NOW} takes one parameter: the injected clock's epoch millis, or null for the
 * database clock ({@code statement_timestamp()}, the same for every use within one statement).
 */
final class Sql {
  static final String NOW =
      "COALESCE(CAST(? AS BIGINT), CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000 AS BIGINT))";

  /**
   * A released row (in progress without a token) is free; an expired one too. Both carry their
   * counts on (a taken-over one counts a takeover); an expired completed row starts afresh.
   */
  private static final String UPSERT =
      " ON CONFLICT (idem_key) DO UPDATE SET state = 'P', owner_token = EXCLUDED.owner_token,"
          + " fingerprint = EXCLUDED.fingerprint, lease_until_ms = EXCLUDED.lease_until_ms,"
          + " retain_until_ms = NULL, outcome = NULL,"
          + " deliveries = CASE WHEN r.state = 'P' THEN r.deliveries ELSE 0 END"
          + " + EXCLUDED.deliveries,"
          + " takeovers = CASE WHEN r.state <> 'P' THEN 0"
          + " WHEN r.owner_token IS NULL THEN r.takeovers ELSE r.takeovers + 1 END"
          + " WHERE (r.state = 'P' AND r.owner_token IS NULL)"
          + " OR COALESCE(r.retain_until_ms, r.lease_until_ms) <= "
          + NOW;

  /** How long a released row keeps its counts: the next claim normally comes within seconds. */
  static final long RELEASED_MEMORY_MS = 3_600_000L;

  /**
   * The longest a claim statement waits for a row another session holds locked (a concurrent
   * claimant's statement, or the open transaction of a {@link TransactionalStep}, perhaps of a
   * frozen process) before it fails with {@code 55P03}, which the store answers as in progress.
   * Long enough for a healthy claimant's single statement to finish, short enough that a batch
   * holding one locked key does not hold back the others. Set with {@code set_config(..., true)}
   * inside the claim statement itself: it lasts to the end of that statement's transaction and
   * costs no round trip.
   */
  static final long CLAIM_LOCK_WAIT_MS = 100;

  /**
   * Params: key, key, token, fingerprint, now, lease ms, new delivery (0/1), lock timeout (text,
   * for example {@code "100ms"}), now. Columns: lease, takeover, deliveries, takeovers.
   */
  final String claim;

  /**
   * Params: keys[], keys[], tokens[], fingerprints[], leases[], new deliveries[], now, lock timeout
   * (text), now. Columns: key, token, lease, takeover, deliveries, takeovers.
   */
  final String claimAll;

  /** Params: now, key. Columns: state, fingerprint, lease, retain, outcome, now. */
  final String read;

  /** Params: now, keys[]. Columns: key, state, fingerprint, lease, retain, outcome, now. */
  final String readAll;

  /** Params: outcome, now, retention ms, key, token. */
  final String complete;

  /** Params: now, keys[], tokens[], outcomes[], retention ms[]. Columns: key. */
  final String completeAll;

  /** Params: now, key, token. */
  final String fail;

  /** Params: key, token. */
  final String forget;

  /** Params: now, lease ms, key, token. */
  final String renew;

  /** Params: key, now. */
  final String get;

  /** No params. */
  final String clear;

  /** Params: now, grace ms. */
  final String purge;

  /**
   * Params: now, key. Columns: state, owner_token, lease, retain, deliveries, takeovers, outcome,
   * now.
   */
  final String inspect;

  /**
   * Params: key, now, key. Deletes the key's record unless a live claim holds it. Columns: rows
   * deleted, rows the key had.
   */
  final String remove;

  Sql(String t) {
    claim =
        "WITH prev AS (SELECT state, owner_token FROM "
            + t
            + " WHERE idem_key = ?)"
            + " INSERT INTO "
            + t
            + " AS r (idem_key, state, owner_token, fingerprint,"
            + " lease_until_ms, retain_until_ms, outcome, deliveries, takeovers)"
            + " SELECT ?, 'P', ?, ?, "
            + NOW
            + " + ?, NULL, NULL, ?, 0"
            // evaluated before the row is inserted: the lock wait below is bounded
            + " FROM (SELECT set_config('lock_timeout', ?, true)) lt"
            + UPSERT
            + " RETURNING r.lease_until_ms,"
            + " COALESCE((SELECT state = 'P' AND owner_token IS NOT NULL FROM prev), false),"
            + " GREATEST(r.deliveries, 1), r.takeovers";
    claimAll =
        "WITH prev AS (SELECT idem_key, state, owner_token FROM "
            + t
            + " WHERE idem_key = ANY(?))"
            + " INSERT INTO "
            + t
            + " AS r (idem_key, state, owner_token, fingerprint,"
            + " lease_until_ms, retain_until_ms, outcome, deliveries, takeovers)"
            + " SELECT i.k, 'P', i.tok, i.fp, n.now + i.lease, NULL, NULL, i.d, 0"
            + " FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::int[])"
            + " AS i(k, tok, fp, lease, d)"
            + " CROSS JOIN (SELECT "
            + NOW
            + " AS now, set_config('lock_timeout', ?, true) AS lt) n"
            // sorted before the first insert, so the lock timeout is set by then
            + " ORDER BY i.k"
            + UPSERT
            + " RETURNING r.idem_key, r.owner_token, r.lease_until_ms,"
            + " COALESCE((SELECT p.state = 'P' AND p.owner_token IS NOT NULL FROM prev p"
            + " WHERE p.idem_key = r.idem_key), false),"
            + " GREATEST(r.deliveries, 1), r.takeovers";
    read =
        "SELECT state, fingerprint, lease_until_ms, retain_until_ms, outcome, "
            + NOW
            + " FROM "
            + t
            + " WHERE idem_key = ?";
    readAll =
        "SELECT idem_key, state, fingerprint, lease_until_ms, retain_until_ms, outcome, "
            + NOW
            + " FROM "
            + t
            + " WHERE idem_key = ANY(?)";
    complete =
        "UPDATE "
            + t
            + " SET state = 'C', outcome = ?, retain_until_ms = "
            + NOW
            + " + ?,"
            + " lease_until_ms = NULL, owner_token = NULL"
            + " WHERE idem_key = ? AND state = 'P' AND owner_token = ?";
    completeAll =
        "UPDATE "
            + t
            + " AS r SET state = 'C', outcome = i.o, retain_until_ms = n.now + i.ret,"
            + " lease_until_ms = NULL, owner_token = NULL"
            + " FROM (SELECT "
            + NOW
            + " AS now) n,"
            + " unnest(?::text[], ?::text[], ?::bytea[], ?::bigint[]) AS i(k, tok, o, ret)"
            + " WHERE r.idem_key = i.k AND r.state = 'P' AND r.owner_token = i.tok"
            + " RETURNING r.idem_key";
    fail =
        "UPDATE "
            + t
            + " SET owner_token = NULL, fingerprint = NULL, lease_until_ms = 0, retain_until_ms = "
            + NOW
            + " + "
            + RELEASED_MEMORY_MS
            + " WHERE idem_key = ? AND state = 'P' AND owner_token = ?";
    forget = "DELETE FROM " + t + " WHERE idem_key = ? AND state = 'P' AND owner_token = ?";
    renew =
        "UPDATE "
            + t
            + " SET lease_until_ms = "
            + NOW
            + " + ?"
            + " WHERE idem_key = ? AND state = 'P' AND owner_token = ? RETURNING lease_until_ms";
    get =
        "SELECT outcome FROM "
            + t
            + " WHERE idem_key = ? AND state = 'C' AND retain_until_ms > "
            + NOW;
    clear = "DELETE FROM " + t;
    purge =
        "DELETE FROM "
            + t
            + " WHERE idem_key IN (SELECT idem_key FROM "
            + t
            + " WHERE COALESCE(retain_until_ms, lease_until_ms) <= "
            + NOW
            + " - ? LIMIT 10000)";
    inspect =
        "SELECT state, owner_token, lease_until_ms, retain_until_ms, deliveries, takeovers,"
            + " outcome, "
            + NOW
            + " FROM "
            + t
            + " WHERE idem_key = ? ORDER BY COALESCE(retain_until_ms, lease_until_ms) DESC LIMIT 1";
    remove =
        "WITH d AS (DELETE FROM "
            + t
            + " WHERE idem_key = ? AND NOT (state = 'P' AND owner_token IS NOT NULL"
            + " AND lease_until_ms > "
            + NOW
            + ") RETURNING 1) SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM "
            + t
            + " WHERE idem_key = ?)";
  }
}
