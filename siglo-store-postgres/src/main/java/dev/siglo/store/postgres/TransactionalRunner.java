package dev.siglo.store.postgres;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.UnreadableOutcomeException;
import dev.siglo.consumer.spi.Declines;
import dev.siglo.consumer.spi.StepContext;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;

/** One run of a {@link TransactionalStep}: claim, body and record in a single transaction. */
final class TransactionalRunner {
  private final PostgresIdempotencyStore store;

  TransactionalRunner(PostgresIdempotencyStore store) {
    this.store = store;
  }

  /** The user's own failure, carried past the SQL failure mapping unchanged. */
  private static final class BodyFailure extends Exception {
    private static final long serialVersionUID = 1L;

    BodyFailure(Exception cause) {
      super(cause);
    }
  }

  <I, R> R run(
      String key,
      String stepName,
      IdempotencyConfig options,
      ErrorClassifier classifier,
      StepContext steps,
      Class<R> resultType,
      TransactionalFunction<I, R> body,
      I input)
      throws Exception {
    String table = store.config().qualifiedTable();
    try (Connection c = store.config().dataSource().getConnection()) {
      store.ensureTable(c);
      // partitions for the claim and the record are made before the transaction begins
      store.ensurePartitionsFor(c, options.lease().toMillis());
      store.ensurePartitionsFor(c, options.ttl().toMillis());
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        bound(c, options);
        ClaimResult claim =
            store.claimIn(
                c, new ClaimRequest(key, null, options.lease()), key, options.settleTimeout());
        if (claim instanceof ClaimResult.Completed completed) {
          c.commit();
          return steps.replay(stepName, completed.outcome(), resultType);
        }
        if (claim instanceof ClaimResult.InProgress) {
          c.rollback();
          throw new IdempotencyConflictException(
              "key '" + key + "' is claimed outside a transaction by another execution");
        }
        ClaimToken token = ((ClaimResult.Claimed) claim).token();
        Savepoint beforeBody = c.setSavepoint();
        R value;
        try {
          value = body.apply(c, input);
        } catch (Exception e) {
          Classification k = classifier.classifyDetailed(e);
          if (k.errorClass() == ErrorClass.PERMANENT && !UnreadableOutcomeException.isIn(e)) {
            c.rollback(beforeBody);
            record(c, key, token, Declines.of(k), options.ttl());
            c.commit();
          } else {
            c.rollback();
          }
          throw new BodyFailure(e);
        }
        record(c, key, token, new Outcome.Success(steps.encodeResult(value)), options.ttl());
        c.commit();
        return value;
      } catch (BodyFailure f) {
        throw (Exception) f.getCause();
      } catch (SQLException e) {
        rollbackQuietly(c);
        throw SqlFailures.map("transactional step '" + stepName + "'", table, e);
      } catch (RuntimeException | Error e) {
        rollbackQuietly(c);
        throw e;
      } finally {
        restoreQuietly(c, autoCommit);
      }
    } catch (SQLException e) {
      throw SqlFailures.map("transactional step '" + stepName + "'", table, e);
    }
  }

  private void record(Connection c, String key, ClaimToken token, Outcome outcome, Duration ttl)
      throws SQLException {
    byte[] encoded = store.config().codec().encode(outcome);
    if (store.completeIn(c, key, token, encoded, ttl) != 1) {
      throw token.notHeldOn(key);
    }
  }

  /**
   * Bounds this transaction's waits: on another's lock, the settle timeout (then {@code 55P03}, a
   * conflict); on this client between statements, the store's idle-in-transaction timeout or the
   * lease (then PostgreSQL ends the session, so a frozen holder's locks do not outlive its lease).
   */
  private void bound(Connection c, IdempotencyConfig options) throws SQLException {
    Duration idle = store.config().idleInTransactionTimeout();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT set_config('lock_timeout', ?, true),"
                + " set_config('idle_in_transaction_session_timeout', ?, true)")) {
      ps.setString(1, PostgresIdempotencyStore.lockTimeout(options.settleTimeout()));
      ps.setString(2, PostgresIdempotencyStore.lockTimeout(idle == null ? options.lease() : idle));
      ps.execute();
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is broken; the server rolls the transaction back itself
    }
  }

  private static void restoreQuietly(Connection c, boolean autoCommit) {
    try {
      c.setAutoCommit(autoCommit);
    } catch (SQLException ignored) {
      // a broken connection is discarded by the pool
    }
  }
}
