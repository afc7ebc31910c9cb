package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisSentinel;
import dev.siglo.testkit.RedisSentinelExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract through Redis Sentinel (one primary, one replica, three sentinels). */
class RedisSentinelStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .sentinel(RedisSentinel.MASTER_NAME, SENTINEL.deployment().sentinels())
            .keyPrefix("contract:")
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
