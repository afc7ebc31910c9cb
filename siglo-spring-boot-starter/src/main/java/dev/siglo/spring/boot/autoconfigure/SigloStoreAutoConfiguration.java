package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.SigloPropertyException;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisIdempotencyStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The idempotency store the consumers share, one bean of type {@link IdempotencyStore}, chosen by
 * {@code siglo.store.type}:
 *
 * <ul>
 *   <li>{@code memory} (the default): this process only;
 *   <li>{@code postgres}: a {@link PostgresIdempotencyStore} on the application's {@link
 *       DataSource} (its table created when missing, its expired rows purged on a schedule; the
 *       {@code DataSource} is the application's and is not closed with the store);
 *   <li>{@code redis}: a {@link RedisIdempotencyStore} from {@code siglo.store.redis.*}, its
 *       connection from {@code spring.data.redis.*} when {@code siglo.store.redis.url} and {@code
 *       cluster-nodes} are unset.
 * </ul>
 *
 * An application's own {@code IdempotencyStore} bean replaces it. The store is closed when the
 * context closes, after the consumers stopped.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"
    })
@ConditionalOnProperty(prefix = "siglo", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SigloProperties.class)
public final class SigloStoreAutoConfiguration {
  /** Created by Spring. */
  public SigloStoreAutoConfiguration() {}

  /** The in-memory store, {@code siglo.store.type=memory} (the default). */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(
      prefix = "siglo.store",
      name = "type",
      havingValue = "memory",
      matchIfMissing = true)
  static class Memory {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    InMemoryIdempotencyStore sigloIdempotencyStore() {
      return InMemoryIdempotencyStore.of();
    }
  }

  /** The PostgreSQL store on the application's DataSource, {@code siglo.store.type=postgres}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "siglo.store", name = "type", havingValue = "postgres")
  @ConditionalOnClass(name = "dev.siglo.store.postgres.PostgresIdempotencyStore")
  static class Postgres {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    PostgresIdempotencyStore sigloIdempotencyStore(
        SigloProperties properties, ObjectProvider<DataSource> dataSources) {
      DataSource dataSource = dataSources.getIfUnique();
      if (dataSource == null) {
        throw new SigloPropertyException(
            "siglo.store.type",
            "postgres needs the application's DataSource, and the context has "
                + (dataSources.stream().findAny().isPresent() ? "several" : "none")
                + " (set spring.datasource.url, or mark one @Primary)");
      }
      return PostgresStores.build(properties.getStore().getPostgres(), dataSource);
    }
  }

  /** The Redis store, {@code siglo.store.type=redis}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "siglo.store", name = "type", havingValue = "redis")
  @ConditionalOnClass(name = "dev.siglo.store.redis.RedisIdempotencyStore")
  static class Redis {
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdempotencyStore.class)
    RedisIdempotencyStore sigloIdempotencyStore(SigloProperties properties, Environment env) {
      return RedisStores.build(properties.getStore().getRedis(), env);
    }
  }

  /** {@code siglo.store.type=redis} without siglo-store-redis: a start-up error naming it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "siglo.store", name = "type", havingValue = "redis")
  @ConditionalOnMissingClass("dev.siglo.store.redis.RedisIdempotencyStore")
  static class RedisMissing {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore sigloIdempotencyStore() {
      throw missingModule("redis", "siglo-store-redis");
    }
  }

  /** {@code siglo.store.type=postgres} without siglo-store-postgres: a start-up error naming it. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(prefix = "siglo.store", name = "type", havingValue = "postgres")
  @ConditionalOnMissingClass("dev.siglo.store.postgres.PostgresIdempotencyStore")
  static class PostgresMissing {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore sigloIdempotencyStore() {
      throw missingModule("postgres", "siglo-store-postgres");
    }
  }

  static SigloPropertyException missingModule(String type, String artifact) {
    return new SigloPropertyException(
        "siglo.store.type", type + " needs dev.siglo:" + artifact + " on the class path");
  }

  /** Builds the PostgreSQL store (a class of its own: loaded only with siglo-store-postgres). */
  static final class PostgresStores {
    private PostgresStores() {}

    static PostgresIdempotencyStore build(SigloProperties.Postgres p, DataSource dataSource) {
      PostgresStoreConfig.Builder b =
          PostgresStoreConfig.builder(dataSource)
              .table(p.getTable())
              .createTable(p.isCreateTable())
              .purgeGrace(p.getPurgeGrace())
              .closeDataSourceOnClose(false);
      if (p.getSchema() != null) {
        b.schema(p.getSchema());
      }
      if (p.getPartitionWidth() != null) {
        b.partitioned(p.getPartitionWidth());
      }
      PostgresIdempotencyStore store;
      try {
        store = PostgresIdempotencyStore.of(b.build());
      } catch (IllegalArgumentException e) {
        throw new SigloPropertyException("siglo.store.postgres", e.getMessage());
      }
      if (p.getPurgeInterval() == null
          || p.getPurgeInterval().isNegative()
          || p.getPurgeInterval().isZero()) {
        store.close();
        throw new SigloPropertyException(
            "siglo.store.postgres.purge-interval", "must be a positive duration");
      }
      store.schedulePurge(p.getPurgeInterval());
      return store;
    }
  }
}
