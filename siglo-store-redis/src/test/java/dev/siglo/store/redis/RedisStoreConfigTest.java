package dev.siglo.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;

class RedisStoreConfigTest {
  @Test
  void aClusterConfigurationNamesItsNodesAndRefusesWhatAClusterCannotDo() {
    RedisStoreConfig cluster =
        RedisStoreConfig.custom().cluster(List.of(new HostAndPort("10.0.0.1", 7000))).build();
    assertThat(cluster.clusterNodes()).containsExactly(new HostAndPort("10.0.0.1", 7000));
    assertThat(cluster.toString()).contains("cluster[10.0.0.1:7000]");
    assertThat(RedisStoreConfig.custom().build().clusterNodes()).isEmpty();

    assertThatThrownBy(
            () ->
                RedisStoreConfig.custom()
                    .cluster(List.of(new HostAndPort("10.0.0.1", 7000)))
                    .database(2)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("database must be 0 on a Redis Cluster (it has no other), was 2");
    assertThatThrownBy(() -> RedisStoreConfig.custom().cluster(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cluster needs at least one node");
  }

  @Test
  void aSentinelConfigurationNamesItsMasterAndExcludesACluster() {
    List<HostAndPort> sentinels = List.of(new HostAndPort("10.0.0.5", 26379));
    RedisStoreConfig config = RedisStoreConfig.custom().sentinel("payments", sentinels).build();
    assertThat(config.sentinelMaster()).isEqualTo("payments");
    assertThat(config.sentinels()).containsExactlyElementsOf(sentinels);
    assertThat(config.toString()).contains("sentinel:payments[10.0.0.5:26379]");

    assertThatThrownBy(() -> RedisStoreConfig.custom().sentinel(" ", sentinels))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sentinel master name must not be blank");
    assertThatThrownBy(
            () ->
                RedisStoreConfig.custom()
                    .sentinel("payments", sentinels)
                    .cluster(List.of(new HostAndPort("10.0.0.1", 7000)))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cluster and sentinel exclude each other: a Redis Cluster fails over by itself");
  }

  @Test
  void replicaAcksAreOffByDefaultAndValidated() {
    assertThat(RedisStoreConfig.custom().build().replicaAcks()).isZero();
    RedisStoreConfig on =
        RedisStoreConfig.custom().replicaAcks(1, java.time.Duration.ofMillis(500)).build();
    assertThat(on.replicaAcks()).isEqualTo(1);
    assertThat(on.toString()).contains("replicaAcks=1 within PT0.5S");
    assertThatThrownBy(
            () -> RedisStoreConfig.custom().replicaAcks(-1, java.time.Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicaAcks must be 0 or more, was -1");
  }

  @Test
  void aUrlGivesHostPortCredentialsDatabaseAndTlsAndNeverEchoesItself() {
    RedisStoreConfig c =
        RedisStoreConfig.custom().url("rediss://app:p%40ss@cache.internal:6380/3").build();
    assertThat(c.host()).isEqualTo("cache.internal");
    assertThat(c.port()).isEqualTo(6380);
    assertThat(c.database()).isEqualTo(3);
    assertThat(c.user()).isEqualTo("app");
    assertThat(c.password()).isEqualTo("p@ss");
    assertThat(c.tls()).isNotNull();

    RedisStoreConfig plain =
        RedisStoreConfig.custom().credentials("u", "kept").database(2).url("redis://h:1").build();
    assertThat(plain.user()).isEqualTo("u");
    assertThat(plain.database()).isEqualTo(2);
    assertThat(plain.tls()).isNull();

    assertThatThrownBy(() -> RedisStoreConfig.custom().url("http://secret@h:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("secret")
        .hasMessageContaining("redis://host:port");
    assertThatThrownBy(() -> RedisStoreConfig.custom().url("redis://h:1/zero"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the Redis URL's database 'zero' is not a number");
  }
}
