package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.StoreFactory;
import java.net.URI;

/** Opens a Redis store from {@code redis://host:port} in a race child process. */
public final class RedisStoreFactory implements StoreFactory {
  @Override
  public IdempotencyStore open(String connection) {
    URI uri = URI.create(connection);
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom().hostAndPort(uri.getHost(), uri.getPort()).poolSize(8).build());
  }
}
