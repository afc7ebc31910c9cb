package dev.siglo.examples.stores;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.examples.payments.Order;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.postgres.TransactionalStep;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import redis.clients.jedis.HostAndPort;

/** How each shared store is configured; the README shows these methods' bodies. */
public final class StoreConfigurations {
  private StoreConfigurations() {}

  /**
   * @param password the Redis password (from a secret store, never from code)
   * @return a Redis store for several consumer processes
   */
  public static RedisIdempotencyStore redis(String password) {
    // README:start redis-store
    RedisIdempotencyStore redis =
        RedisIdempotencyStore.of(
            RedisStoreConfig.custom()
                .hostAndPort("redis.internal", 6379)
                .credentials("siglo", password) // ACL user; never printed, masked in toString
                .tls(true)
                .database(2)
                .keyPrefix("payments:") // clear() only ever touches keys under it
                .poolSize(32)
                .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2))
                .build());
    // README:end redis-store
    return redis;
  }

  /**
   * @param password the Redis password (from a secret store, never from code)
   * @return a Redis store on a Redis Cluster
   */
  public static RedisIdempotencyStore redisCluster(String password) {
    // README:start redis-cluster-store
    RedisIdempotencyStore redis =
        RedisIdempotencyStore.of(
            RedisStoreConfig.custom()
                .cluster(
                    List.of(
                        new HostAndPort("redis-0.internal", 6379),
                        new HostAndPort("redis-1.internal", 6379))) // any nodes: the rest is found
                .credentials("siglo", password)
                .keyPrefix("payments:") // clear() walks every primary, under this prefix only
                .replicaAcks(1, Duration.ofMillis(500)) // failover-safe claims (below)
                .build());
    // README:end redis-cluster-store
    return redis;
  }

  /**
   * @param password the Redis password (from a secret store, never from code)
   * @return a Redis store on the primary Redis Sentinel names
   */
  public static RedisIdempotencyStore redisSentinel(String password) {
    // README:start redis-sentinel-store
    RedisIdempotencyStore redis =
        RedisIdempotencyStore.of(
            RedisStoreConfig.custom()
                .sentinel(
                    "payments-redis", // the name the sentinels monitor the primary under
                    List.of(
                        new HostAndPort("sentinel-0.internal", 26379),
                        new HostAndPort("sentinel-1.internal", 26379),
                        new HostAndPort("sentinel-2.internal", 26379)))
                .credentials("siglo", password)
                .keyPrefix("payments:")
                .build());
    // README:end redis-sentinel-store
    return redis;
  }

  /**
   * @param dataSource a pooled data source (HikariCP or your framework's)
   * @return a PostgreSQL store
   */
  public static PostgresIdempotencyStore postgres(DataSource dataSource) {
    // README:start postgres-store
    PostgresIdempotencyStore postgres =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(dataSource) // your pool: one borrowed connection per call
                .schema("payments")
                .table("siglo_idempotency")
                .createTable(true) // or apply postgres.schemaSql() with your migration tool
                .build());
    postgres.schedulePurge(Duration.ofMinutes(10)); // deletes rows an hour past their expiry
    // README:end postgres-store
    return postgres;
  }

  /**
   * @param dataSource a pooled data source (HikariCP or your framework's)
   * @return a PostgreSQL store on the partitioned layout
   */
  public static PostgresIdempotencyStore partitionedPostgres(DataSource dataSource) {
    // README:start postgres-partitioned-store
    PostgresIdempotencyStore postgres =
        PostgresIdempotencyStore.of(
            PostgresStoreConfig.builder(dataSource)
                .schema("payments")
                .table("siglo_records") // a new table: schema-partitioned.sql
                .partitioned(Duration.ofHours(6)) // a partition per 6 h of expiry times
                .createTable(true)
                .build());
    postgres.schedulePurge(Duration.ofMinutes(10)); // drops partitions an hour past expiry
    // README:end postgres-partitioned-store
    return postgres;
  }

  /**
   * @param postgres the store whose database also holds the payments table
   * @return a step that writes a payment and its idempotency record in one transaction
   */
  public static TransactionalStep<Order, Long> recordPayment(PostgresIdempotencyStore postgres) {
    // README:start transactional-step
    TransactionalStep<Order, Long> recordPayment =
        TransactionalStep.of(
                postgres,
                "recordPayment",
                Long.class,
                (Connection connection, Order order) -> {
                  try (PreparedStatement insert =
                      connection.prepareStatement(
                          "INSERT INTO payments (order_id, amount_cents) VALUES (?, ?) RETURNING id")) {
                    insert.setString(1, order.orderId());
                    insert.setLong(2, order.amountCents());
                    try (ResultSet rs = insert.executeQuery()) {
                      rs.next();
                      return rs.getLong(1);
                    }
                  }
                })
            .idempotent(order -> "payment:" + order.orderId(), IdempotencyConfig.defaults());
    // inside a MessageHandler: long paymentId = context.run(recordPayment, order);
    // README:end transactional-step
    return recordPayment;
  }
}
