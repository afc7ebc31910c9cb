package dev.siglo.store.redis;

import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;

/**
 * Builds the jedis client a {@link RedisStoreConfig} describes: a pooled client of one server, of
 * the primary Sentinel names, or of a Redis Cluster, with its timeouts, TLS and credentials.
 */
final class RedisClients {
  private RedisClients() {}

  /**
   * @return a new client with its pool; it connects on first use
   */
  static UnifiedJedis create(RedisStoreConfig config) {
    DefaultJedisClientConfig.Builder client =
        withTimeouts(config).database(config.database()).clientName("siglo");
    if (config.tls() != null) {
      client.sslOptions(config.tls());
    }
    if (config.password() != null) {
      client.user(config.user()).password(config.password());
    }
    ConnectionPoolConfig pool = new ConnectionPoolConfig();
    pool.setMaxTotal(config.poolSize());
    pool.setMaxIdle(config.poolSize());
    pool.setMinIdle(0);
    pool.setMaxWait(config.socketTimeout());
    pool.setBlockWhenExhausted(true);
    pool.setJmxEnabled(false);
    if (!config.clusterNodes().isEmpty()) {
      return RedisClusterClient.builder()
          .nodes(config.clusterNodes())
          .clientConfig(client.build())
          .poolConfig(pool)
          .build();
    }
    if (config.sentinelMaster() != null) {
      return RedisSentinelClient.builder()
          .masterName(config.sentinelMaster())
          .sentinels(config.sentinels())
          .clientConfig(client.build())
          .sentinelClientConfig(withTimeouts(config).build())
          .poolConfig(pool)
          .build();
    }
    return RedisClient.builder()
        .hostAndPort(config.host(), config.port())
        .clientConfig(client.build())
        .poolConfig(pool)
        .build();
  }

  /**
   * A client configuration with the store's connect and socket timeouts (servers and sentinels).
   */
  private static DefaultJedisClientConfig.Builder withTimeouts(RedisStoreConfig config) {
    return DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(Math.toIntExact(config.connectTimeout().toMillis()))
        .socketTimeoutMillis(Math.toIntExact(config.socketTimeout().toMillis()));
  }
}
