package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import redis.clients.jedis.HostAndPort;

/**
 * Builds the Redis store from {@code siglo.store.redis.*}, taking the connection from Boot's {@code
 * spring.data.redis.*} (url, or host, port, username, password, database, ssl.enabled; or
 * cluster.nodes) when Siglo's own url and cluster nodes are unset. Loaded only with
 * siglo-store-redis.
 */
final class RedisStores {
  private static final String BOOT = "spring.data.redis";

  private RedisStores() {}

  static RedisIdempotencyStore build(SigloProperties.Redis p, Environment env) {
    Binder binder = Binder.get(env);
    RedisStoreConfig.Builder b = RedisStoreConfig.custom();
    String where = "siglo.store.redis";
    try {
      if (p.getUrl() != null) {
        where = "siglo.store.redis.url";
        b.url(p.getUrl());
      } else if (!p.getClusterNodes().isEmpty()) {
        where = "siglo.store.redis.cluster-nodes";
        b.cluster(hosts(p.getClusterNodes(), where));
      } else {
        List<String> bootCluster =
            binder.bind(BOOT + ".cluster.nodes", String[].class).map(List::of).orElse(List.of());
        String url = binder.bind(BOOT + ".url", String.class).orElse(null);
        if (!bootCluster.isEmpty()) {
          where = BOOT + ".cluster.nodes";
          b.cluster(hosts(bootCluster, where));
        } else if (url != null) {
          where = BOOT + ".url";
          b.url(url);
        } else {
          where = BOOT;
          b.hostAndPort(
              binder.bind(BOOT + ".host", String.class).orElse("localhost"),
              binder.bind(BOOT + ".port", Integer.class).orElse(6379));
          b.database(binder.bind(BOOT + ".database", Integer.class).orElse(0));
        }
        b.credentials(
            binder.bind(BOOT + ".username", String.class).orElse(null),
            binder.bind(BOOT + ".password", String.class).orElse(null));
        if (binder.bind(BOOT + ".ssl.enabled", Boolean.class).orElse(false)) {
          b.tls(true);
        }
      }
      Duration timeout = p.getTimeout();
      where = "siglo.store.redis";
      b.keyPrefix(p.getKeyPrefix())
          .poolSize(p.getPoolSize())
          .timeouts(timeout, timeout)
          .hashRecords(p.isHashRecords());
      return RedisIdempotencyStore.of(b.build());
    } catch (IllegalArgumentException e) {
      throw new SigloPropertyException(where, e.getMessage());
    }
  }

  private static List<HostAndPort> hosts(List<String> nodes, String property) {
    List<HostAndPort> out = new ArrayList<>();
    for (String node : nodes) {
      int colon = node.lastIndexOf(':');
      try {
        out.add(
            new HostAndPort(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1))));
      } catch (RuntimeException e) {
        throw new SigloPropertyException(property, "'" + node + "' is not host:port");
      }
    }
    return out;
  }
}
