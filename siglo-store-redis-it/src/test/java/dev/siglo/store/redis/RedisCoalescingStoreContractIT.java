package dev.siglo.store.redis;

import dev.siglo.consumer.store.CoalescingIdempotencyStore;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract through the coalescing decorator the runtimes use with Redis: concurrent claims and
 * completions become batch scripts, and every caller still gets its own answer.
 */
class RedisCoalescingStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return new CoalescingIdempotencyStore(
        RedisIdempotencyStore.of(
            RedisStoreConfig.custom()
                .hostAndPort(REDIS.server().host(), REDIS.server().port())
                .keyPrefix("coalesced:")
                .poolSize(16)
                .clock(clock)
                .build()));
  }
}
