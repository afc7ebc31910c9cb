package dev.siglo.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A payments table written by a transactional step, shared by the in-process tests and the child
 * process that is killed between its write and its commit. The table has no unique constraint, so a
 * second write for an order would show as a second row.
 */
final class Payments {
  static final String RECORDS = "tx_records";

  /** Runs inside the transaction right after the payment row is written. */
  @FunctionalInterface
  interface AfterWrite {
    void run() throws Exception;
  }

  private Payments() {}

  static HikariDataSource pool(String jdbcUrl) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setMaximumPoolSize(16);
    return new HikariDataSource(c);
  }

  static void createTable(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS payments (order_id TEXT NOT NULL, amount BIGINT NOT NULL)");
    }
  }

  static int rows(DataSource ds, String orderId) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM payments WHERE order_id = ?")) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static int records(DataSource ds, String table, String keyFragment) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM " + table + " WHERE idem_key LIKE ?")) {
      ps.setString(1, "%" + keyFragment + "%");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static PostgresIdempotencyStore store(DataSource ds) {
    return PostgresIdempotencyStore.of(
        PostgresStoreConfig.builder(ds).table(RECORDS).createTable(true).build());
  }

  /** The step: insert the payment, then {@code afterWrite}; returns the amount recorded. */
  static TransactionalStep<String, Long> recordPayment(
      PostgresIdempotencyStore store, AfterWrite afterWrite) {
    return TransactionalStep.of(
            store,
            "recordPayment",
            Long.class,
            (Connection connection, String orderId) -> {
              try (PreparedStatement ps =
                  connection.prepareStatement(
                      "INSERT INTO payments (order_id, amount) VALUES (?, ?)")) {
                ps.setString(1, orderId);
                ps.setLong(2, 1250);
                ps.executeUpdate();
              }
              afterWrite.run();
              return 1250L;
            })
        .idempotent(
            orderId -> "payment:" + orderId,
            IdempotencyConfig.custom().settleTimeout(Duration.ofSeconds(20)).build());
  }

  /** A processor whose handler runs the step for the order named by the payload. */
  static MessageProcessor processor(
      PostgresIdempotencyStore store, TransactionalStep<String, Long> step) {
    return MessageProcessor.of(
        MessageProcessorConfig.builder(
                PayloadDecoder.utf8(),
                (String orderId, dev.siglo.consumer.HandlerContext ctx) -> ctx.run(step, orderId))
            .store(store)
            .idempotency(
                IdempotencyConfig.custom()
                    .lease(Duration.ofSeconds(2))
                    .settleTimeout(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(50))
                    .build())
            .retry(RetryConfig.custom().maxAttempts(1).build())
            .build());
  }

  static Message message(String orderId) {
    return Message.builder("payments-0@1", new MessageSource("test", "payments", 0, 1))
        .header("idempotency-key", orderId)
        .payload(orderId.getBytes(StandardCharsets.UTF_8))
        .build();
  }
}
