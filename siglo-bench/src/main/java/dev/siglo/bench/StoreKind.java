package dev.siglo.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import dev.siglo.testkit.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/** The idempotency store a Siglo configuration runs on ({@link #OFF}: no claims at all). */
enum StoreKind {
  OFF("idempotency off"),
  MEMORY("in-memory store"),
  REDIS("Redis store"),
  REDIS_HASHES("Redis store writing 1.0's hash records (hashRecords)"),
  REDIS_CLUSTER("Redis Cluster store (3 primaries, 3 replicas)"),
  POSTGRES("PostgreSQL store"),
  POSTGRES_PARTITIONED("PostgreSQL store, partitioned by expiry (6 h partitions)");

  final String label;

  StoreKind(String label) {
    this.label = label;
  }

  /**
   * @return the least share of the plain loop's rate a configuration must reach, or NaN for none
   */
  double rateTarget() {
    return switch (this) {
      case MEMORY -> 0.6;
      case REDIS -> 0.4;
      case POSTGRES -> 0.15;
      default -> Double.NaN;
    };
  }

  /**
   * @return whether the store runs on the benchmark's standalone Redis server, whose CPU is
   *     measured
   */
  boolean onStandaloneRedis() {
    return this == REDIS || this == REDIS_HASHES;
  }

  /**
   * @return whether the store runs on the benchmark's PostgreSQL (and its smaller record count)
   */
  boolean onPostgres() {
    return this == POSTGRES || this == POSTGRES_PARTITIONED;
  }

  /**
   * @param servers where Redis and PostgreSQL run
   * @param pool connections the store may use at once
   * @return a new, empty store (null for {@link #OFF}); the caller clears and closes it
   */
  IdempotencyStore open(Servers servers, int pool) {
    return switch (this) {
      case OFF -> null;
      case MEMORY -> InMemoryIdempotencyStore.of();
      case REDIS, REDIS_HASHES -> {
        RedisServer redis = servers.redis();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.of(
                RedisStoreConfig.custom()
                    .hostAndPort(redis.host(), redis.port())
                    .keyPrefix("bench:")
                    .poolSize(pool)
                    .hashRecords(this == REDIS_HASHES)
                    .build());
        store.clear();
        yield store;
      }
      case REDIS_CLUSTER -> {
        RedisIdempotencyStore store =
            RedisIdempotencyStore.of(
                RedisStoreConfig.custom()
                    .cluster(servers.redisCluster().addresses())
                    .keyPrefix("bench:")
                    .poolSize(pool)
                    .build());
        store.clear();
        yield store;
      }
      case POSTGRES, POSTGRES_PARTITIONED -> {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(servers.postgres().jdbcUrl());
        hikari.setMaximumPoolSize(pool);
        hikari.setPoolName("siglo-bench");
        PostgresStoreConfig.Builder config =
            PostgresStoreConfig.builder(new HikariDataSource(hikari))
                .table(this == POSTGRES ? "siglo_bench" : "siglo_bench_partitioned")
                .createTable(true)
                .closeDataSourceOnClose(true);
        if (this == POSTGRES_PARTITIONED) {
          config.partitioned(Duration.ofHours(6));
        }
        PostgresIdempotencyStore store = PostgresIdempotencyStore.of(config.build());
        store.clear();
        yield store;
      }
    };
  }

  /**
   * Before a PostgreSQL run, outside its window: vacuums the benchmark's tables (every partition of
   * the partitioned one), so that the rows the last run's store deleted are not reclaimed by
   * autovacuum during this one, then flushes the machine's dirty pages ({@code sync}), so that the
   * store's commits (fsync on) do not queue behind the write-back of what earlier runs wrote (the
   * broker's logs, the tables). Neither removed the warm runs' slowdown (docs/STATUS.md).
   */
  static void settlePostgres(Servers servers) {
    try (Connection c = DriverManager.getConnection(servers.postgres().jdbcUrl());
        Statement s = c.createStatement()) {
      for (String table : List.of("siglo_bench", "siglo_bench_partitioned")) {
        if (s.executeQuery("SELECT to_regclass('" + table + "') IS NOT NULL").next()
            && s.getResultSet().getBoolean(1)) {
          s.execute("VACUUM (ANALYZE) " + table);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("vacuuming the benchmark's tables failed", e);
    }
    try {
      int exit = new ProcessBuilder("sync").inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IllegalStateException("sync exited with " + exit);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run sync", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while flushing dirty pages", e);
    }
  }

  /** Empties and closes a store {@link #open} returned. */
  static void dispose(IdempotencyStore store) {
    if (store == null) {
      return;
    }
    try (store) {
      if (store instanceof RedisIdempotencyStore r) {
        r.clear();
      } else if (store instanceof PostgresIdempotencyStore p) {
        p.clear();
      }
    } catch (Exception e) {
      throw new IllegalStateException("closing " + store + " failed", e);
    }
  }
}
