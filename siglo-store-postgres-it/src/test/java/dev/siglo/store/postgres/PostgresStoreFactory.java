package dev.siglo.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.StoreFactory;

/**
 * Opens a PostgreSQL store from a JDBC URL in a race child process (table {@code race_records}).
 */
public final class PostgresStoreFactory implements StoreFactory {
  @Override
  public IdempotencyStore open(String connection) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(connection);
    c.setMaximumPoolSize(4);
    return PostgresIdempotencyStore.of(
        PostgresStoreConfig.builder(new HikariDataSource(c))
            .table("race_records")
            .createTable(true)
            .closeDataSourceOnClose(true)
            .build());
  }
}
