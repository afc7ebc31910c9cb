package dev.siglo.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class PostgresStoreConfigTest {
  /** A data source no test connects to: the settings are checked before any connection. */
  private static final DataSource NONE =
      new DataSource() {
        @Override
        public Connection getConnection() {
          throw new UnsupportedOperationException();
        }

        @Override
        public Connection getConnection(String user, String password) {
          throw new UnsupportedOperationException();
        }

        @Override
        public PrintWriter getLogWriter() {
          return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
          return 0;
        }

        @Override
        public Logger getParentLogger() {
          return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
          return false;
        }
      };

  @Test
  void aPartitionWidthOfPartSecondsOrNoPartitionsAheadFailsNamingTheSetting() {
    assertThatThrownBy(() -> PostgresStoreConfig.builder(NONE).partitioned(Duration.ofMillis(1500)))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessage("partitionWidth must be whole seconds, was PT1.5S");
    assertThatThrownBy(() -> PostgresStoreConfig.builder(NONE).partitionsAhead(0))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessage("partitionsAhead must be at least 1, was 0");
    assertThatThrownBy(() -> PostgresStoreConfig.builder(NONE).partitioned(Duration.ZERO))
        .hasMessageContaining("partitionWidth");
  }

  @Test
  void thePartitionedLayoutHasItsOwnSchemaAndPartitionNamesFitAnIdentifier() {
    PostgresStoreConfig config =
        PostgresStoreConfig.builder(NONE)
            .table("t".repeat(52))
            .partitioned(Duration.ofHours(1))
            .build();
    String schema = PostgresIdempotencyStore.of(config).schemaSql();

    assertThat(schema)
        .contains("PARTITION BY RANGE ((COALESCE(retain_until_ms, lease_until_ms)))")
        .doesNotContain("PRIMARY KEY")
        .doesNotContain("${");
    String partition = config.qualifiedPartition(4_102_444_800_000L); // 2100-01-01
    assertThat(partition.length() - 2).isLessThanOrEqualTo(63);
    assertThat(config.qualifiedPartition(0)).isNotEqualTo(config.qualifiedPartition(3_600_000));
    assertThat(PostgresIdempotencyStore.of(PostgresStoreConfig.builder(NONE).build()).schemaSql())
        .contains("PRIMARY KEY");
  }
}
