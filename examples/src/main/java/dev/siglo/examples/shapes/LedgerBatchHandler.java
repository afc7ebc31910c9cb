package dev.siglo.examples.shapes;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.examples.payments.Order;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

// README:start batch-handler
/**
 * Books a batch of orders into the ledger table with one statement in one transaction. Siglo
 * claimed each order's key before the call (duplicates never arrive here) and records each order's
 * outcome after it, on its own.
 */
public final class LedgerBatchHandler implements BatchMessageHandler<Order> {
  private final DataSource database;

  /**
   * @param database where the ledger table is
   */
  public LedgerBatchHandler(DataSource database) {
    this.database = database;
  }

  @Override
  public BatchResult handle(List<BatchItem<Order>> batch) throws SQLException {
    BatchResult.Builder result = BatchResult.builder();
    List<BatchItem<Order>> booked = new ArrayList<>();
    for (BatchItem<Order> item : batch) {
      if (item.value().amountCents() <= 0) {
        // this order's decline, cached for its duplicates; the rest of the batch goes on
        result.failure(item, new PermanentException("amount must be positive"));
      } else {
        booked.add(item);
      }
    }
    try (Connection c = database.getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO ledger (order_id, customer_id, amount_cents) VALUES (?, ?, ?)")) {
      c.setAutoCommit(false); // all rows or none: a retried batch never meets half of itself
      for (BatchItem<Order> item : booked) {
        insert.setString(1, item.value().orderId());
        insert.setString(2, item.value().customerId());
        insert.setLong(3, item.value().amountCents());
        insert.addBatch();
      }
      insert.executeBatch(); // a failure here fails the whole batch: classified once, for each
      c.commit();
    }
    for (BatchItem<Order> item : booked) {
      result.success(item, item.value().orderId()); // cached: a duplicate gets it back
    }
    return result.build();
  }
}
// README:end batch-handler
