package dev.siglo.store.postgres;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every transactional-step test again, on the partitioned layout: the claim's advisory lock lives
 * in the user's transaction, and a concurrent duplicate waits on it as on the single table's row
 * lock.
 */
class PartitionedTransactionalStepIT extends TransactionalStepIT {
  @BeforeAll
  static void partitioned() {
    store =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(ds)
                .table("tx_records_partitioned")
                .partitioned(Duration.ofHours(1))
                .createTable(true)
                .build());
  }
}
