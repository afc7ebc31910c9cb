package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract against a real Redis (redis-server from PATH, else the embedded 6.2). */
class RedisStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .hostAndPort(REDIS.server().host(), REDIS.server().port())
            .keyPrefix("contract:")
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
