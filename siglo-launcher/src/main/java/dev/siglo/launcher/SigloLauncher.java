package dev.siglo.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.store.redis.RedisStoreConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * Runs a Siglo consumer from a configuration file ({@code java -cp ...
 * dev.siglo.launcher.SigloLauncher consumer.properties}). Keys are listed in {@link LauncherKey}
 * (and {@code docs/CONFIGURATION.md}); environment variables override the file. Invalid
 * configuration stops it at start-up with a message naming the file, the key and the problem (exit
 * code 2). SIGTERM closes it cleanly: stop receiving, drain, commit or delete, exit 0.
 */
public final class SigloLauncher {
  private SigloLauncher() {}

  /** A started consumer. */
  public interface Running extends AutoCloseable {
    /**
     * @return completes when the consumer stops (exceptionally on a fatal error)
     */
    CompletableFuture<Void> termination();

    /** Stops: drain, commit or delete, close. */
    @Override
    void close();
  }

  /**
   * @param args the configuration file
   */
  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: SigloLauncher <consumer.properties>");
      System.exit(2);
    }
    Running running;
    try {
      running = start(LauncherConfig.load(Path.of(args[0]), System.getenv()));
    } catch (SigloConfigurationException e) {
      System.err.println("siglo: invalid configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    // SIGTERM: drain, commit or delete, then exit 0 (a JVM stopped by a signal would exit 143)
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  Runtime.getRuntime()
                      .halt(running.termination().isCompletedExceptionally() ? 1 : 0);
                },
                "siglo-launcher-shutdown"));
    try {
      running.termination().join();
      System.exit(0);
    } catch (RuntimeException e) {
      System.err.println("siglo: the consumer stopped: " + e.getCause());
      System.exit(1);
    }
  }

  /**
   * Builds and starts the consumer the configuration describes.
   *
   * @param config the configuration
   * @return the running consumer
   * @throws SigloConfigurationException naming the file, the key and the problem
   */
  public static Running start(LauncherConfig config) {
    String payload = config.required(LauncherKey.PAYLOAD);
    Object handler = instantiate(config, LauncherKey.HANDLER);
    if (!(handler instanceof MessageHandler<?>)) {
      throw config.error(
          LauncherKey.HANDLER.key(),
          handler.getClass().getName() + " does not implement MessageHandler");
    }
    if (payload.equals("utf8")) {
      return start(config, PayloadDecoder.utf8(), handler);
    }
    if (payload.equals("bytes")) {
      return start(config, PayloadDecoder.bytes(), handler);
    }
    if (payload.startsWith("json:")) {
      Class<?> type = load(config, LauncherKey.PAYLOAD, payload.substring(5));
      return start(
          config, PayloadDecoder.json(new ObjectMapper().findAndRegisterModules(), type), handler);
    }
    throw config.error(
        LauncherKey.PAYLOAD.key(), "'" + payload + "' must be utf8, bytes or json:<class>");
  }

  @SuppressWarnings("unchecked")
  private static <T> Running start(
      LauncherConfig config, PayloadDecoder<T> decoder, Object handler) {
    MessageHandler<T> typed = (MessageHandler<T>) handler;
    String broker = config.oneOf(LauncherKey.BROKER, "kafka", "sqs");
    IdempotencyStore store = store(config);
    ErrorClassifier classifier =
        ErrorClassifier.fromProperties(
            config.classification(),
            config.source(),
            Thread.currentThread().getContextClassLoader());
    RetryConfig retry =
        RetryConfig.custom()
            .maxAttempts(config.positiveInt(LauncherKey.RETRY_MAX_ATTEMPTS))
            .maxDeliveries(config.positiveInt(LauncherKey.RETRY_MAX_DELIVERIES))
            .maxTakeovers(config.positiveInt(LauncherKey.RETRY_MAX_TAKEOVERS))
            .backoff(
                config.duration(LauncherKey.RETRY_BACKOFF),
                config.duration(LauncherKey.RETRY_BACKOFF).multipliedBy(20))
            .build();
    IdempotencyKeys keys =
        IdempotencyKeys.custom()
            .namespace(config.get(LauncherKey.KEY_NAMESPACE))
            .version(config.get(LauncherKey.KEY_VERSION))
            .build();
    int concurrency = config.positiveInt(LauncherKey.CONCURRENCY);
    PrometheusEndpoint prometheus = PrometheusEndpoint.startIfConfigured(config);
    IdempotencyKeyExtractor<Object> extractor = keyExtractor(config);
    if (broker.equals("kafka")) {
      SigloKafkaConsumer.Builder<T> b =
          SigloKafkaConsumer.builder(decoder, typed)
              .bootstrapServers(config.required(LauncherKey.KAFKA_BOOTSTRAP))
              .groupId(config.required(LauncherKey.KAFKA_GROUP))
              .topics(config.required(LauncherKey.KAFKA_TOPICS).split("\\s*,\\s*"))
              .ordering(ordering(config))
              .deadLetterDeclines(Boolean.parseBoolean(config.get(LauncherKey.KAFKA_DLT_DECLINES)))
              .createDeadLetterTopics(
                  Boolean.parseBoolean(config.get(LauncherKey.KAFKA_CREATE_DLT)))
              .store(store)
              .classifier(classifier)
              .retry(retry)
              .keys(keys)
              .concurrency(concurrency);
      if (prometheus != null) {
        b.metrics(prometheus.registry());
      }
      if (extractor != null) {
        b.keyExtractor(extractor);
      }
      SigloKafkaConsumer<T> consumer = b.build();
      consumer.start();
      return running(
          consumer.termination(),
          () -> {
            consumer.close(Duration.ofSeconds(30));
            store.close();
            if (prometheus != null) {
              prometheus.close();
            }
          });
    }
    SqsClientBuilder client = SqsClient.builder();
    String endpoint = config.get(LauncherKey.SQS_ENDPOINT);
    if (endpoint != null) {
      client.endpointOverride(URI.create(endpoint));
    }
    String region = config.get(LauncherKey.SQS_REGION);
    if (region != null) {
      client.region(Region.of(region));
    }
    SqsClient sqs = client.build();
    SigloSqsConsumer.Builder<T> b =
        SigloSqsConsumer.builder(decoder, typed)
            .client(sqs)
            .queueName(config.required(LauncherKey.SQS_QUEUE))
            .waitTime(config.duration(LauncherKey.SQS_WAIT))
            .threads(1, concurrency, Math.max(concurrency * 2, 10))
            .store(store)
            .classifier(classifier)
            .retry(retry)
            .keys(keys);
    if (prometheus != null) {
      b.metrics(prometheus.registry());
    }
    if (extractor != null) {
      b.keyExtractor(extractor);
    }
    String dlq = config.get(LauncherKey.SQS_DLQ);
    if (dlq != null) {
      b.deadLetterQueue(dlq, false);
    }
    SigloSqsConsumer<T> consumer = b.build();
    consumer.start();
    return running(
        consumer.termination(),
        () -> {
          consumer.close(Duration.ofSeconds(30));
          sqs.close();
          store.close();
          if (prometheus != null) {
            prometheus.close();
          }
        });
  }

  private static Running running(CompletableFuture<Void> termination, Runnable close) {
    return new Running() {
      @Override
      public CompletableFuture<Void> termination() {
        return termination;
      }

      @Override
      public void close() {
        close.run();
      }
    };
  }

  private static Ordering ordering(LauncherConfig config) {
    String value = config.required(LauncherKey.KAFKA_ORDERING).toUpperCase(java.util.Locale.ROOT);
    try {
      return Ordering.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw config.error(
          LauncherKey.KAFKA_ORDERING.key(), "'" + value + "' must be KEY, PARTITION or UNORDERED");
    }
  }

  private static IdempotencyStore store(LauncherConfig config) {
    String kind = config.oneOf(LauncherKey.STORE, "memory", "redis", "postgres");
    if (kind.equals("redis")) {
      URI uri = URI.create(config.required(LauncherKey.STORE_REDIS_URL));
      if (uri.getHost() == null || uri.getPort() < 0) {
        throw config.error(
            LauncherKey.STORE_REDIS_URL.key(), "'" + uri + "' must look like redis://host:port");
      }
      return RedisIdempotencyStore.of(
          RedisStoreConfig.custom()
              .hostAndPort(uri.getHost(), uri.getPort())
              .credentials(null, config.get(LauncherKey.STORE_REDIS_PASSWORD))
              .hashRecords(
                  config
                      .oneOf(LauncherKey.STORE_REDIS_HASH_RECORDS, "true", "false")
                      .equals("true"))
              .build());
    }
    if (kind.equals("postgres")) {
      Duration width = partitionWidth(config);
      HikariConfig pool = new HikariConfig();
      pool.setJdbcUrl(config.required(LauncherKey.STORE_POSTGRES_URL));
      pool.setMaximumPoolSize(Math.max(4, config.positiveInt(LauncherKey.CONCURRENCY)));
      pool.setPoolName("siglo-store");
      pool.setInitializationFailTimeout(-1); // an unreachable database is transient, not fatal
      PostgresStoreConfig.Builder postgres =
          PostgresStoreConfig.builder(new HikariDataSource(pool))
              .table(config.required(LauncherKey.STORE_POSTGRES_TABLE))
              .createTable(true)
              .closeDataSourceOnClose(true);
      if (width != null) {
        postgres.partitioned(width);
      }
      return PostgresIdempotencyStore.of(postgres.build());
    }
    return InMemoryIdempotencyStore.of();
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

  /**
   * @return the configured extractor, or null for the broker's default
   */
  private static IdempotencyKeyExtractor<Object> keyExtractor(LauncherConfig config) {
    String spec = config.get(LauncherKey.KEY);
    if (spec == null) {
      return null;
    }
    List<IdempotencyKeyExtractor<Object>> parts = new ArrayList<>();
    for (String part : spec.split("\\s*,\\s*")) {
      String[] kv = part.split(":", 2);
      String arg = kv.length > 1 ? kv[1] : null;
      IdempotencyKeyExtractor<Object> e =
          switch (kv[0]) {
            case "header" -> KeyExtractors.header(needArg(config, part, arg));
            case "attribute" -> KeyExtractors.attribute(needArg(config, part, arg));
            case "json-pointer" -> KeyExtractors.jsonPointer(needArg(config, part, arg));
            case "record-key" -> KeyExtractors.recordKey();
            case "deduplication-id" -> KeyExtractors.deduplicationId();
            case "message-id" -> KeyExtractors.messageId();
            default ->
                throw config.error(LauncherKey.KEY.key(), "'" + part + "' is not a key source");
          };
      parts.add(e);
    }
    return KeyExtractors.firstPresent(parts);
  }

  private static String needArg(LauncherConfig config, String part, String arg) {
    if (arg == null || arg.isBlank()) {
      throw config.error(
          LauncherKey.KEY.key(), "'" + part + "' needs a name, for example header:idempotency-key");
    }
    return arg;
  }

  private static Object instantiate(LauncherConfig config, LauncherKey key) {
    Class<?> type = load(config, key, config.required(key));
    try {
      return type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw config.error(
          key.key(),
          type.getName() + " cannot be created with a public no-argument constructor: " + e);
    }
  }

  private static Class<?> load(LauncherConfig config, LauncherKey key, String name) {
    try {
      return Class.forName(name, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw config.error(key.key(), "class '" + name + "' not found");
    }
  }
}
