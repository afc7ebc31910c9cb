package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.RedisSentinel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Redis store through Sentinel across a real failover: the primary SIGKILLed, the replica
 * promoted.
 */
class RedisSentinelStoreIT {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private static RedisStoreConfig.Builder through(RedisSentinel sentinel) {
    return RedisStoreConfig.custom()
        .sentinel(RedisSentinel.MASTER_NAME, sentinel.sentinels())
        .timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void theStoreFollowsAFailoverAndAReplicaAcknowledgedCompletionSurvivesIt() {
    try (RedisSentinel sentinel = RedisSentinel.start();
        RedisIdempotencyStore acked =
            RedisIdempotencyStore.of(
                through(sentinel).replicaAcks(1, Duration.ofSeconds(2)).build());
        RedisIdempotencyStore store = RedisIdempotencyStore.of(through(sentinel).build())) {
      String key = "ff:idemp:_:_:order-1";
      ClaimResult.Claimed claimed =
          (ClaimResult.Claimed) acked.claim(new ClaimRequest(key, null, LEASE));
      acked.complete(key, claimed.token(), new Outcome.Success("\"paid\""), Duration.ofHours(1));

      sentinel.killPrimary();

      int[] n = {0};
      await("a claim on the promoted replica")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () ->
                  store
                          .claim(new ClaimRequest("ff:idemp:_:_:after-" + n[0]++, null, LEASE))
                          .status()
                      == ClaimStatus.CLAIMED);
      assertThat(sentinel.currentPrimary()).isEqualTo(sentinel.replica());
      assertThat(store.claim(new ClaimRequest(key, null, LEASE)))
          .as("the completion the replica acknowledged before the failover")
          .isEqualTo(new ClaimResult.Completed(new Outcome.Success("\"paid\"")));
    }
  }
}
