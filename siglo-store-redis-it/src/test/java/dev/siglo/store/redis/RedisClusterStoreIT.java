package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.testkit.MultiProcessClaimRace;
import dev.siglo.testkit.RedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.HostAndPort;

/** The Redis store on a real 3+3 Redis Cluster: racing processes, and a primary crashing. */
class RedisClusterStoreIT {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void severalProcessesRacingForTheSameKeysGetExactlyOneClaimPerKeyOnACluster() throws Exception {
    int keys = 10_000;
    try (RedisCluster cluster = RedisCluster.start()) {
      HostAndPort seed = cluster.addresses().get(0);
      List<List<String>> won =
          MultiProcessClaimRace.run(
              RedisStoreFactory.class,
              "redis-cluster://" + seed.getHost() + ":" + seed.getPort(),
              4,
              keys);
      MultiProcessClaimRace.assertOneClaimPerKey(won, keys);
    }
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void whenAPrimaryCrashesItsSlotsAreServedByThePromotedReplicaAndFailuresMeanwhileAreTransient() {
    try (RedisCluster cluster = RedisCluster.start();
        RedisIdempotencyStore store = RedisIdempotencyStore.of(on(cluster).build())) {
      // every key of the test carries the hash tag {order-1}: one slot, served by the victim
      HostAndPort victim = cluster.primaryOf("order-1");
      assertThat(store.claim(new ClaimRequest(key(0), null, LEASE)).status())
          .isEqualTo(ClaimStatus.CLAIMED);

      cluster.kill(victim);

      List<RuntimeException> failures = new ArrayList<>();
      int[] n = {1};
      await("a new key of the crashed primary's slot claimed on the promoted replica")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                try {
                  ClaimResult r = store.claim(new ClaimRequest(key(n[0]++), null, LEASE));
                  return r.status() == ClaimStatus.CLAIMED;
                } catch (RuntimeException e) {
                  failures.add(e);
                  return false;
                }
              });
      assertThat(cluster.currentPrimaryOf("order-1"))
          .as("the slot moved to the crashed primary's replica")
          .isNotEqualTo(victim)
          .isIn(cluster.replicas());
      assertThat(failures)
          .as("every failure while the replica took over is a transient store outage")
          .allSatisfy(e -> assertThat(e).isInstanceOf(IdempotencyStoreUnavailableException.class));
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void withReplicaAcksAClaimCountsOnceItsSlotsReplicaHasItAndFailsTransientlyWithoutIt() {
    try (RedisCluster cluster = RedisCluster.start();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.of(on(cluster).replicaAcks(1, Duration.ofMillis(500)).build())) {
      List<ClaimRequest> spread = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        spread.add(new ClaimRequest("ff:idemp:_:_:spread-" + i, null, LEASE));
      }
      assertThat(store.claimAll(spread))
          .as("a batch over many slots, each group acknowledged by its replica")
          .allSatisfy(r -> assertThat(r.result().status()).isEqualTo(ClaimStatus.CLAIMED));

      cluster.kill(cluster.replicaOf(cluster.primaryOf("order-1")));

      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> store.claim(new ClaimRequest(key(0), null, LEASE)))
          .isInstanceOf(IdempotencyStoreUnavailableException.class)
          .hasMessageContaining("replicas acknowledged the claim");
    }
  }

  /** A store on the cluster, discovered from one node, with 1 s timeouts. */
  private static RedisStoreConfig.Builder on(RedisCluster cluster) {
    return RedisStoreConfig.custom()
        .cluster(cluster.addresses().subList(0, 1))
        .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  /** The n-th key of the slot of hash tag {@code order-1}. */
  private static String key(int n) {
    return "ff:idemp:_:_:{order-1}-" + n;
  }
}
