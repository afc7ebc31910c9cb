package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The full store contract on a real Redis Cluster of three primaries and three replicas: batches
 * span many hash slots (split by slot, one pipeline), {@code clear()} walks every primary.
 */
class RedisClusterStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .cluster(CLUSTER.cluster().addresses().subList(0, 1)) // the rest is discovered
            .keyPrefix("contract:")
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
