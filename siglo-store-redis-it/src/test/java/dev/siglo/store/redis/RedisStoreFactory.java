package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.StoreFactory;
import java.net.URI;
import java.util.List;
import redis.clients.jedis.HostAndPort;

/**
 * Opens a Redis store in a race child process: {@code redis://host:port} for a standalone server,
 * {@code redis-cluster://host:port} for a cluster discovered from that node.
 */
public final class RedisStoreFactory implements StoreFactory {
  @Override
  public IdempotencyStore open(String connection) {
    URI uri = URI.create(connection);
    RedisStoreConfig.Builder config = RedisStoreConfig.custom().poolSize(8);
    if ("redis-cluster".equals(uri.getScheme())) {
      config.cluster(List.of(new HostAndPort(uri.getHost(), uri.getPort())));
    } else {
      config.hostAndPort(uri.getHost(), uri.getPort());
    }
    return RedisIdempotencyStore.of(config.build());
  }
}
