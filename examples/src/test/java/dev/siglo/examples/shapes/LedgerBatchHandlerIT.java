package dev.siglo.examples.shapes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.examples.payments.Order;
import dev.siglo.testkit.PostgresServerExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The README's batch handler through the engine on a real PostgreSQL: a batch books each valid
 * order once in one transaction, declines the invalid one on its own, and its duplicates never
 * reach the ledger.
 */
class LedgerBatchHandlerIT {
  @RegisterExtension
  static final PostgresServerExtension POSTGRES = new PostgresServerExtension(false);

  private static final AtomicLong OFFSETS = new AtomicLong();
  private DataSource database;

  @BeforeEach
  void ledger() throws SQLException {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(POSTGRES.server().jdbcUrl());
    database = ds;
    try (Connection c = DriverManager.getConnection(POSTGRES.server().jdbcUrl());
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS ledger (order_id text PRIMARY KEY, customer_id text,"
              + " amount_cents bigint)");
      s.execute("TRUNCATE ledger");
    }
  }

  private static Message order(String id, long amount) {
    String json =
        "{\"orderId\":\""
            + id
            + "\",\"customerId\":\"c\",\"card\":\"4242\",\"amountCents\":"
            + amount
            + "}";
    long offset = OFFSETS.incrementAndGet();
    return Message.builder("orders-0@" + offset, new MessageSource("test", "orders", 0, offset))
        .payload(json.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  private List<String> ledgerRows() throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = database.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT order_id FROM ledger ORDER BY order_id")) {
      while (r.next()) {
        out.add(r.getString(1));
      }
    }
    return out;
  }

  @Test
  void aBatchBooksEachValidOrderOnceAndDeclinesTheInvalidOneAlone() throws Exception {
    MessageProcessor engine =
        MessageProcessor.of(
            MessageProcessorConfig.batchBuilder(
                    PayloadDecoder.json(Order.class), new LedgerBatchHandler(database))
                .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
                .build());

    List<Disposition> first =
        engine.processAll(
            List.of(order("o-1", 500), order("o-2", -1), order("o-3", 700)), (i, d) -> d);
    List<Disposition> again =
        engine.processAll(List.of(order("o-1", 500), order("o-4", 100)), (i, d) -> d);

    assertThat(first.get(0)).isInstanceOf(Disposition.Ack.class);
    assertThat(first.get(1)).isInstanceOf(Disposition.AckDeclined.class);
    assertThat(first.get(2)).isInstanceOf(Disposition.Ack.class);
    assertThat(((Disposition.Ack) again.get(0)).reason())
        .isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(((Disposition.Ack) again.get(0)).outcome().resultJson()).isEqualTo("\"o-1\"");
    assertThat(ledgerRows()).containsExactly("o-1", "o-3", "o-4");
  }
}
