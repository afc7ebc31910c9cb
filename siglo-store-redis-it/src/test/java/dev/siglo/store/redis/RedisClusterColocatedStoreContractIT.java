package dev.siglo.store.redis;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.testkit.IdempotencyStoreContract;
import dev.siglo.testkit.MutableClock;
import dev.siglo.testkit.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The full store contract on the 3+3 Redis Cluster with step records co-located by hash tags. */
class RedisClusterColocatedStoreContractIT extends IdempotencyStoreContract {
  @RegisterExtension static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

  @Override
  protected IdempotencyStore createStore(MutableClock clock) {
    return RedisIdempotencyStore.of(
        RedisStoreConfig.custom()
            .cluster(CLUSTER.cluster().addresses().subList(0, 1))
            .colocateSteps(true)
            .keyPrefix("colocated:")
            .poolSize(64)
            .clock(clock)
            .build());
  }
}
