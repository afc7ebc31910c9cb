package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Failover-safe claims ({@code replicaAcks}) on a real primary with a real replica: claims and
 * completions count once the replica acknowledged them, and fail transiently when it cannot.
 */
class RedisReplicaAcksIT {
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Test
  void claimsAndCompletionsWaitForTheReplicaAndFailTransientlyWithoutIt() {
    try (RedisServer primary = RedisServer.custom().start();
        RedisServer replica = RedisServer.custom().replicaOf(primary).start();
        RedisIdempotencyStore store =
            RedisIdempotencyStore.of(
                RedisStoreConfig.custom()
                    .hostAndPort(primary.host(), primary.port())
                    .replicaAcks(1, Duration.ofMillis(500))
                    .build())) {
      await("the replica in sync")
          .atMost(Duration.ofSeconds(30))
          .until(() -> info(replica).contains("master_link_status:up"));

      String key = "ff:idemp:_:_:order-1";
      ClaimResult.Claimed claimed =
          (ClaimResult.Claimed) store.claim(new ClaimRequest(key, null, LEASE));
      store.complete(key, claimed.token(), new Outcome.Success("\"paid\""), Duration.ofHours(1));
      try (Jedis onReplica = new Jedis(replica.host(), replica.port())) {
        assertThat(onReplica.exists("siglo:" + key))
            .as("acknowledged: the record is on the replica when the call returns")
            .isTrue();
      }

      replica.kill();

      assertThatThrownBy(() -> store.claim(new ClaimRequest("ff:idemp:_:_:order-2", null, LEASE)))
          .isInstanceOf(IdempotencyStoreUnavailableException.class)
          .hasMessage(
              "only 0 of the 1 replicas acknowledged the claim within 500 ms (replicaAcks)");
    }
  }

  private static String info(RedisServer server) {
    try (Jedis j = new Jedis(server.host(), server.port())) {
      return j.info("replication");
    }
  }
}
