package dev.siglo.launcher;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.SslOptions;

/**
 * Builds the idempotency store a configuration names ({@code siglo.store.type} and its {@code
 * siglo.store.*} keys), for the consumer and for the {@code inspect} and {@code forget} commands,
 * and describes it for the start-up summary without its secrets.
 */
final class LauncherStores {
  private LauncherStores() {}

  /**
   * A store, where it is for the summary (no secret in it), and its upkeep for a running consumer
   * (the PostgreSQL store's scheduled purge; nothing for the others).
   */
  record Built(IdempotencyStore store, String description, Runnable startUpkeep) {
    Built(IdempotencyStore store, String description) {
      this(store, description, () -> {});
    }
  }

  static Built build(LauncherConfig config) {
    String kind = config.oneOf(LauncherKey.STORE, "memory", "redis", "postgres");
    return switch (kind) {
      case "redis" -> redis(config);
      case "postgres" -> postgres(config);
      default ->
          new Built(
              InMemoryIdempotencyStore.of(),
              "memory (this process only: duplicates across processes are not suppressed)");
    };
  }

  /**
   * @return the configuration's store, its connection checked ({@link StartupChecks#store}); the
   *     caller closes it
   */
  static IdempotencyStore openChecked(LauncherConfig config) {
    IdempotencyStore store = build(config).store();
    try {
      new StartupChecks(config).store(store);
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static Built redis(LauncherConfig config) {
    RedisStoreConfig.Builder b = RedisStoreConfig.custom();
    String user = config.get(LauncherKey.STORE_REDIS_USER);
    String password = config.get(LauncherKey.STORE_REDIS_PASSWORD);
    boolean tls = Boolean.parseBoolean(config.oneOf(LauncherKey.STORE_REDIS_TLS, "true", "false"));
    int database = config.nonNegativeInt(LauncherKey.STORE_REDIS_DATABASE);
    String where;
    String url = config.get(LauncherKey.STORE_REDIS_URL);
    String cluster = config.get(LauncherKey.STORE_REDIS_CLUSTER_NODES);
    String sentinels = config.get(LauncherKey.STORE_REDIS_SENTINELS);
    int given = (url == null ? 0 : 1) + (cluster == null ? 0 : 1) + (sentinels == null ? 0 : 1);
    if (given != 1) {
      throw config.error(
          LauncherKey.STORE_REDIS_URL.key(),
          "give exactly one of "
              + LauncherKey.STORE_REDIS_URL.key()
              + ", "
              + LauncherKey.STORE_REDIS_CLUSTER_NODES.key()
              + " and "
              + LauncherKey.STORE_REDIS_SENTINELS.key()
              + " (with siglo.store.type=redis)");
    }
    if (url != null) {
      // the explicit keys first: what the URL gives (user, password, database, TLS) wins
      b.credentials(user, password).database(database);
      try {
        b.url(url);
      } catch (IllegalArgumentException e) {
        throw config.error(LauncherKey.STORE_REDIS_URL.key(), e.getMessage());
      }
      where = null;
    } else if (cluster != null) {
      b.cluster(hosts(config, LauncherKey.STORE_REDIS_CLUSTER_NODES));
      where = "cluster " + cluster;
    } else {
      String master = config.required(LauncherKey.STORE_REDIS_SENTINEL_MASTER);
      b.sentinel(master, hosts(config, LauncherKey.STORE_REDIS_SENTINELS));
      where = "primary '" + master + "' of sentinels " + sentinels;
    }
    String truststore = config.get(LauncherKey.STORE_REDIS_TRUSTSTORE);
    if (truststore != null) {
      String tsPassword = config.get(LauncherKey.STORE_REDIS_TRUSTSTORE_PASSWORD);
      b.tls(
          SslOptions.builder()
              .truststore(
                  Path.of(truststore).toFile(),
                  tsPassword == null ? null : tsPassword.toCharArray())
              .build());
    } else if (tls) {
      b.tls(true);
    }
    Duration timeout = config.positiveDuration(LauncherKey.STORE_REDIS_TIMEOUT);
    int replicas = config.nonNegativeInt(LauncherKey.STORE_REDIS_REPLICA_ACKS);
    if (replicas > 0) {
      b.replicaAcks(replicas, timeout);
    }
    if (url == null) {
      b.credentials(user, password).database(database);
    }
    b.keyPrefix(config.required(LauncherKey.STORE_REDIS_PREFIX))
        .poolSize(config.positiveInt(LauncherKey.STORE_REDIS_POOL_SIZE))
        .timeouts(timeout, timeout)
        .gcGrace(config.positiveDuration(LauncherKey.STORE_REDIS_GC_GRACE))
        .colocateSteps(
            config.oneOf(LauncherKey.STORE_REDIS_COLOCATE_STEPS, "true", "false").equals("true"))
        .hashRecords(
            config.oneOf(LauncherKey.STORE_REDIS_HASH_RECORDS, "true", "false").equals("true"));
    RedisStoreConfig built;
    RedisIdempotencyStore store;
    try {
      built = b.build();
      store = RedisIdempotencyStore.of(built);
    } catch (IllegalArgumentException e) {
      throw config.error(config.name(LauncherKey.STORE), e.getMessage());
    }
    String description =
        "redis at "
            + (where != null ? where : built.host() + ":" + built.port())
            + (built.tls() != null ? ", TLS" : "")
            + (built.user() == null ? "" : ", user " + built.user())
            + (built.hasPassword() ? ", password ****" : "")
            + ", database "
            + built.database()
            + ", key prefix "
            + built.keyPrefix();
    return new Built(store, description);
  }

  private static List<HostAndPort> hosts(LauncherConfig config, LauncherKey key) {
    List<HostAndPort> out = new ArrayList<>();
    for (String part : config.required(key).split("\\s*,\\s*")) {
      int colon = part.lastIndexOf(':');
      try {
        out.add(
            new HostAndPort(part.substring(0, colon), Integer.parseInt(part.substring(colon + 1))));
      } catch (RuntimeException e) {
        throw config.error(key.key(), "'" + part + "' is not host:port");
      }
    }
    return out;
  }

  private static Built postgres(LauncherConfig config) {
    Duration width = partitionWidth(config);
    String url = config.required(LauncherKey.STORE_POSTGRES_URL);
    if (!url.startsWith("jdbc:postgresql:")) {
      throw config.error(
          LauncherKey.STORE_POSTGRES_URL.key(),
          "must be a jdbc:postgresql://host:port/database URL");
    }
    HikariConfig pool = new HikariConfig();
    pool.setJdbcUrl(url);
    pool.setUsername(config.get(LauncherKey.STORE_POSTGRES_USER));
    pool.setPassword(config.get(LauncherKey.STORE_POSTGRES_PASSWORD));
    pool.setMaximumPoolSize(
        config.isSet(LauncherKey.STORE_POSTGRES_POOL_SIZE)
            ? config.positiveInt(LauncherKey.STORE_POSTGRES_POOL_SIZE)
            : Math.max(4, config.positiveInt(LauncherKey.CONCURRENCY)));
    pool.setPoolName("siglo-store");
    pool.setInitializationFailTimeout(-1); // an outage after start is transient, not fatal
    PostgresStoreConfig.Builder postgres =
        PostgresStoreConfig.builder(new HikariDataSource(pool))
            .table(config.required(LauncherKey.STORE_POSTGRES_TABLE))
            .createTable(true)
            .purgeGrace(config.positiveDuration(LauncherKey.STORE_POSTGRES_PURGE_GRACE))
            .closeDataSourceOnClose(true);
    String schema = config.get(LauncherKey.STORE_POSTGRES_SCHEMA);
    if (schema != null) {
      postgres.schema(schema);
    }
    if (width != null) {
      postgres
          .partitioned(width)
          .partitionsAhead(config.positiveInt(LauncherKey.STORE_POSTGRES_PARTITIONS_AHEAD));
    }
    String description =
        "postgres at "
            + masked(url)
            + ", table "
            + (schema == null ? "" : schema + ".")
            + config.required(LauncherKey.STORE_POSTGRES_TABLE)
            + (width == null ? "" : ", partitioned by " + width);
    Duration purge = config.positiveDuration(LauncherKey.STORE_POSTGRES_PURGE_INTERVAL);
    try {
      PostgresIdempotencyStore store = PostgresIdempotencyStore.of(postgres.build());
      return new Built(
          store, description + ", purged every " + purge, () -> store.schedulePurge(purge));
    } catch (IllegalArgumentException e) {
      throw config.error(config.name(LauncherKey.STORE), e.getMessage());
    }
  }

  /** The JDBC URL without its query (which may hold a password). */
  private static String masked(String url) {
    int q = url.indexOf('?');
    return q < 0 ? url : url.substring(0, q) + "?****";
  }

  /**
   * @return the PostgreSQL store's partition width, checked, or null for the single table
   */
  private static Duration partitionWidth(LauncherConfig config) {
    if (config.get(LauncherKey.STORE_POSTGRES_PARTITION_WIDTH) == null) {
      return null;
    }
    Duration width = config.duration(LauncherKey.STORE_POSTGRES_PARTITION_WIDTH);
    if (width.isNegative() || width.isZero() || width.toMillis() % 1000 != 0) {
      throw config.error(
          LauncherKey.STORE_POSTGRES_PARTITION_WIDTH.key(),
          "'" + width + "' must be a positive number of whole seconds");
    }
    return width;
  }
}
