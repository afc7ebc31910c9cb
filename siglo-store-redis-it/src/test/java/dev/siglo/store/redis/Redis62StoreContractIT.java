package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract against Redis 6.2 (the binary embedded-redis ships). */
class Redis62StoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension
  static final RedisServerExtension REDIS =
      RedisServerExtension.owned(RedisServer.custom().embeddedBinary(true));

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .hostAndPort(REDIS.server().host(), REDIS.server().port())
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
