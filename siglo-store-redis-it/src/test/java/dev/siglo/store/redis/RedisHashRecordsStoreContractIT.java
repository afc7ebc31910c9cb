package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract with {@code hashRecords(true)}: records written as 1.0's hashes. */
class RedisHashRecordsStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .hostAndPort(REDIS.server().host(), REDIS.server().port())
            .keyPrefix("hashes:")
            .hashRecords(true)
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
