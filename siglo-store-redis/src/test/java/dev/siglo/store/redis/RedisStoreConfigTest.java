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
}
