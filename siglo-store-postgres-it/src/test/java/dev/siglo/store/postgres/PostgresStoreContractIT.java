package dev.siglo.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.PostgresServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract against a real PostgreSQL 17. */
class PostgresStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);

  private static HikariDataSource pool;

  static synchronized HikariDataSource pool(String jdbcUrl) {
    if (pool == null) {
      HikariConfig c = new HikariConfig();
      c.setJdbcUrl(jdbcUrl);
      c.setMaximumPoolSize(32);
      c.setPoolName("contract");
      pool = new HikariDataSource(c);
    }
    return pool;
  }

  @AfterAll
  static void closePool() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return PostgresIdempotencyStore.of(
        PostgresStoreConfig.builder(pool(PG.server().jdbcUrl()))
            .table("contract_records")
            .createTable(true)
            .clock(clock)
            .build());
  }
}
