package dev.siglo.store.postgres;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.PostgresServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract on the partitioned layout, against a real PostgreSQL 17. */
class PostgresPartitionedStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);

  @AfterAll
  static void closePool() {
    PostgresStoreContractIT.closePool();
  }

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return PostgresIdempotencyStore.of(
        PostgresStoreConfig.builder(PostgresStoreContractIT.pool(PG.server().jdbcUrl()))
            .table("contract_partitioned")
            .partitioned(Duration.ofHours(1))
            .createTable(true)
            .clock(clock)
            .build());
  }
}
