package dev.siglo.store.postgres;

import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.error.SigloException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * Maps JDBC failures to Siglo's exceptions: transient outages, lock waits, configuration errors.
 */
final class SqlFailures {
  private SqlFailures() {}

  static SigloException map(String operation, String table, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.equals("55P03")) {
      return new IdempotencyConflictException(
          "a record of " + table + " is locked by another transaction that did not settle in time",
          e);
    }
    if (state.equals("42P01")) {
      return new SigloConfigurationException(
          "table "
              + table
              + " does not exist: apply schema.sql of siglo-store-postgres, or build the"
              + " store with createTable(true)",
          e);
    }
    if (state.equals("42501")) {
      return new SigloConfigurationException(
          "the data source's role may not use or change "
              + table
              + " (42501, insufficient privilege; the partitioned layout also needs CREATE on its"
              + " schema): "
              + e.getMessage(),
          e);
    }
    if (state.startsWith("28")) {
      return new SigloConfigurationException(
          "PostgreSQL rejected the credentials of the data source (" + state + ")", e);
    }
    if (e instanceof SQLTransientException
        || e instanceof SQLRecoverableException
        || state.startsWith("08")
        || state.startsWith("53")
        || state.startsWith("57P")
        || state.equals("57014")
        || state.equals("40001")
        || state.equals("40P01")
        // a partitioned table without a partition for the row: maintenance creates it
        || (state.equals("23514") && String.valueOf(e.getMessage()).contains("no partition"))) {
      return new IdempotencyStoreUnavailableException(
          "PostgreSQL unavailable during " + operation + " (" + state + "): " + e.getMessage(), e);
    }
    return new SigloException(
        "PostgreSQL rejected " + operation + " (" + state + "): " + e.getMessage(), e);
  }
}
