package dev.siglo.launcher;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.kafka.SigloKafkaShareConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.store.postgres.PostgresStoreConfig;
import dev.siglo.store.redis.RedisStoreConfig;

/**
 * Every configuration key of the launcher, with its meaning and default: the single source of the
 * reference table in {@code docs/CONFIGURATION.md} (a test keeps the two equal). Classification
 * keys ({@code siglo.classification.*}) are those of {@code ErrorClassifier}; {@link
 * #KAFKA_PROPERTIES} stands for the {@code siglo.kafka.properties.*} prefix. A default in
 * parentheses describes a behaviour rather than a value.
 */
public enum LauncherKey {
  /** The broker. */
  BROKER(
      "siglo.broker",
      "kafka",
      "`kafka` (a consumer group), `kafka-share` (a share group: no order, records of one"
          + " partition in parallel, deliveries counted by the broker) or `sqs`"),
  /** The handler class. */
  HANDLER(
      "siglo.handler",
      null,
      "class implementing `MessageHandler`, `AsyncMessageHandler` or `BatchMessageHandler`, with a"
          + " public no-argument constructor"),
  /** How payloads are decoded. */
  PAYLOAD("siglo.payload", "utf8", "`utf8`, `bytes`, or `json:<class>`"),
  /** Where the key is. */
  KEY(
      "siglo.key.source",
      "(broker default)",
      "comma-separated, first present wins: `header:<name>`, `attribute:<name>`, `record-key`,"
          + " `deduplication-id`, `message-id`, `json-pointer:<pointer>` (also read as"
          + " `siglo.key`)"),
  /** Key namespace. */
  KEY_NAMESPACE("siglo.key.namespace", "(none)", "namespace segment of stored keys"),
  /** Key version. */
  KEY_VERSION("siglo.key.version", "(none)", "version segment of stored keys"),
  /** The store. */
  STORE(
      "siglo.store.type",
      "memory",
      "`memory`, `redis` or `postgres` (also read as `siglo.store`; YAML: `store: {type: redis}`)"),
  /** Redis URL. */
  STORE_REDIS_URL(
      "siglo.store.redis.url",
      "(one of url, cluster-nodes, sentinels)",
      "`redis://[user:password@]host:port[/database]`, `rediss://` for TLS"),
  /** Redis Cluster nodes. */
  STORE_REDIS_CLUSTER_NODES(
      "siglo.store.redis.cluster-nodes",
      "(none)",
      "comma-separated `host:port` of Redis Cluster nodes (any of them)"),
  /** Redis Sentinel addresses. */
  STORE_REDIS_SENTINELS(
      "siglo.store.redis.sentinels", "(none)", "comma-separated `host:port` of Redis Sentinels"),
  /** Redis Sentinel primary name. */
  STORE_REDIS_SENTINEL_MASTER(
      "siglo.store.redis.sentinel-master",
      "(none)",
      "the name the sentinels monitor the primary under"),
  /** Redis TLS without a URL. */
  STORE_REDIS_TLS("siglo.store.redis.tls", "false", "`true`: TLS (implied by a `rediss://` URL)"),
  /** Redis ACL user. */
  STORE_REDIS_USER("siglo.store.redis.user", "(default user)", "Redis ACL user"),
  /** Redis password. */
  STORE_REDIS_PASSWORD("siglo.store.redis.password", "(none)", "Redis password", true),
  /** Redis TLS trust store. */
  STORE_REDIS_TRUSTSTORE(
      "siglo.store.redis.truststore",
      "(JVM default)",
      "PKCS12 or JKS trust store file for the Redis server's certificate"),
  /** Redis TLS trust store password. */
  STORE_REDIS_TRUSTSTORE_PASSWORD(
      "siglo.store.redis.truststore-password", "(none)", "the trust store's password", true),
  /** Redis database. */
  STORE_REDIS_DATABASE(
      "siglo.store.redis.database", "0", "database index (or the URL's `/database`)"),
  /** Redis key prefix. */
  STORE_REDIS_PREFIX(
      "siglo.store.redis.key-prefix",
      RedisStoreConfig.DEFAULT_KEY_PREFIX,
      "prefix of every Redis key the store writes"),
  /** Redis pool size. */
  STORE_REDIS_POOL_SIZE(
      "siglo.store.redis.pool-size",
      String.valueOf(RedisStoreConfig.DEFAULT_POOL_SIZE),
      "connections per Redis node"),
  /** Redis timeouts. */
  STORE_REDIS_TIMEOUT(
      "siglo.store.redis.timeout",
      RedisStoreConfig.DEFAULT_TIMEOUT.toString(),
      "connect and socket timeout"),
  /** Redis replica acknowledgements. */
  STORE_REDIS_REPLICA_ACKS(
      "siglo.store.redis.replica-acks",
      "0",
      "replicas that must acknowledge each write (`WAIT`) before it counts; 0 for none"),
  /** Redis GC grace. */
  STORE_REDIS_GC_GRACE(
      "siglo.store.redis.gc-grace",
      RedisStoreConfig.DEFAULT_GC_GRACE.toString(),
      "how long a record outlives its lease or retention before Redis expires it"),
  /** Redis step colocation. */
  STORE_REDIS_COLOCATE_STEPS(
      "siglo.store.redis.colocate-steps",
      "false",
      "`true` keeps a message's step records in its own hash slot (Redis Cluster; a new key"
          + " prefix)"),
  /** Redis record format. */
  STORE_REDIS_HASH_RECORDS(
      "siglo.store.redis.hash-records",
      "false",
      "`true` writes 1.0's hash records, for a rolling upgrade from 1.0 (README)"),
  /** PostgreSQL URL. */
  STORE_POSTGRES_URL(
      "siglo.store.postgres.url", null, "JDBC URL (with `siglo.store.type=postgres`)"),
  /** PostgreSQL user. */
  STORE_POSTGRES_USER("siglo.store.postgres.user", "(from the URL)", "database user"),
  /** PostgreSQL password. */
  STORE_POSTGRES_PASSWORD(
      "siglo.store.postgres.password", "(from the URL)", "database password", true),
  /** PostgreSQL schema. */
  STORE_POSTGRES_SCHEMA(
      "siglo.store.postgres.schema", "(search path)", "schema of the record table"),
  /** PostgreSQL table. */
  STORE_POSTGRES_TABLE(
      "siglo.store.postgres.table",
      PostgresStoreConfig.DEFAULT_TABLE,
      "record table (created when missing)"),
  /** PostgreSQL pool size. */
  STORE_POSTGRES_POOL_SIZE(
      "siglo.store.postgres.pool-size",
      "(concurrency, at least 4)",
      "connections in the store's pool"),
  /** PostgreSQL partitioning. */
  STORE_POSTGRES_PARTITION_WIDTH(
      "siglo.store.postgres.partition-width",
      "(none)",
      "an ISO-8601 duration such as `PT6H`: records in a table partitioned by expiry, one"
          + " partition per width, dropped once expired (a table of its own: README)"),
  /** PostgreSQL purge grace. */
  STORE_POSTGRES_PURGE_GRACE(
      "siglo.store.postgres.purge-grace",
      PostgresStoreConfig.DEFAULT_PURGE_GRACE.toString(),
      "how long past expiry a row is kept before a purge removes it"),
  /** PostgreSQL purge interval. */
  STORE_POSTGRES_PURGE_INTERVAL(
      "siglo.store.postgres.purge-interval",
      "PT5M",
      "how often a running consumer purges expired rows (drops expired partitions)"),
  /** PostgreSQL partitions ahead. */
  STORE_POSTGRES_PARTITIONS_AHEAD(
      "siglo.store.postgres.partitions-ahead",
      String.valueOf(PostgresStoreConfig.DEFAULT_PARTITIONS_AHEAD),
      "partitions kept created ahead of now (with `partition-width`)"),
  /** Retention of completed records. */
  IDEMPOTENCY_TTL(
      "siglo.idempotency.ttl",
      IdempotencyConfig.DEFAULT_TTL.toString(),
      "how long a completed key's outcome is kept (duplicates within it are settled)"),
  /** Claim lease. */
  IDEMPOTENCY_LEASE(
      "siglo.idempotency.lease",
      IdempotencyConfig.DEFAULT_LEASE.toString(),
      "claim lease, renewed while the handler runs; a dead holder's claim is taken over after it"),
  /** How long a duplicate waits for the holder. */
  IDEMPOTENCY_SETTLE_TIMEOUT(
      "siglo.idempotency.settle-timeout",
      IdempotencyConfig.DEFAULT_SETTLE_TIMEOUT.toString(),
      "how long a concurrent duplicate waits for the holder's outcome"),
  /** Poll interval while settling. */
  IDEMPOTENCY_POLL_INTERVAL(
      "siglo.idempotency.poll-interval",
      IdempotencyConfig.DEFAULT_POLL_INTERVAL.toString(),
      "how often a waiting duplicate reads the record"),
  /** In-process attempts. */
  RETRY_MAX_ATTEMPTS(
      "siglo.retry.max-attempts",
      String.valueOf(RetryConfig.DEFAULT_MAX_ATTEMPTS),
      "in-process attempts per delivery"),
  /** Deliveries before dead-lettering. */
  RETRY_MAX_DELIVERIES(
      "siglo.retry.max-deliveries",
      String.valueOf(RetryConfig.DEFAULT_MAX_DELIVERIES),
      "deliveries before the dead-letter destination (counted on the record: across restarts)"),
  /** Takeovers from a dead holder before CRASH_LOOP. */
  RETRY_MAX_TAKEOVERS(
      "siglo.retry.max-takeovers",
      String.valueOf(RetryConfig.DEFAULT_MAX_TAKEOVERS),
      "takeovers of a message's claim from a dead consumer before it is dead-lettered as"
          + " CRASH_LOOP"),
  /** First in-process backoff. */
  RETRY_BACKOFF(
      "siglo.retry.backoff",
      RetryConfig.DEFAULT_INITIAL_BACKOFF.toString(),
      "first in-process backoff (ISO-8601 duration)"),
  /** Concurrency. */
  CONCURRENCY(
      "siglo.concurrency",
      String.valueOf(SigloKafkaConsumer.DEFAULT_CONCURRENCY),
      "handlers running at once"),
  /** Worker threads. */
  WORKER_THREADS(
      "siglo.worker-threads",
      "platform",
      "`platform`: a fixed pool of `siglo.concurrency` threads; `virtual`: a virtual thread per"
          + " running handler, at most `siglo.concurrency` at once (JDK 21+; refused at start on an"
          + " older JVM)"),
  /** Batch size. */
  BATCH_SIZE(
      "siglo.batch.size",
      String.valueOf(ConsumerBuilder.DEFAULT_BATCH_SIZE),
      "a `BatchMessageHandler`'s most messages at once (at most one per key, partition or FIFO"
          + " group); `siglo.concurrency` is then the batches running at once"),
  /** Batch linger. */
  BATCH_LINGER(
      "siglo.batch.linger",
      ConsumerBuilder.DEFAULT_BATCH_LINGER.toString(),
      "how long a batch that is not full waits for more messages (ISO-8601; `PT0S`: none)"),
  /** Async timeout. */
  ASYNC_TIMEOUT(
      "siglo.async.timeout",
      MessageProcessorConfig.DEFAULT_ASYNC_TIMEOUT.toString(),
      "an `AsyncMessageHandler`'s stage not complete by then is cancelled and fails transiently"),
  /** Tracing. */
  TRACING(
      "siglo.tracing",
      "off",
      "`parent`: trace each message with `GlobalOpenTelemetry` (the OpenTelemetry Java agent's,"
          + " or the SDK the application registered), parented on its `traceparent`; `link`:"
          + " linked to it instead; `off`"),
  /** Prometheus port. */
  METRICS_PORT(
      "siglo.metrics.prometheus-port",
      "(off)",
      "serve Micrometer metrics as Prometheus text on this port at `/metrics`"),
  /** Prometheus bind address. */
  METRICS_BIND("siglo.metrics.bind-address", "0.0.0.0", "address the metrics endpoint listens on"),
  /** Start-up checks' time limit. */
  STARTUP_CHECK_TIMEOUT(
      "siglo.startup.check-timeout",
      "PT10S",
      "how long each start-up check (store, broker, topics, queues, credentials) may take before"
          + " the launcher exits with code 2"),
  /** Kafka bootstrap servers. */
  KAFKA_BOOTSTRAP("siglo.kafka.bootstrap-servers", null, "Kafka bootstrap servers"),
  /** Kafka group. */
  KAFKA_GROUP("siglo.kafka.group-id", null, "consumer group"),
  /** Kafka topics. */
  KAFKA_TOPICS("siglo.kafka.topics", null, "comma-separated topics"),
  /** Kafka client properties. */
  KAFKA_PROPERTIES(
      "siglo.kafka.properties.<name>",
      "(none)",
      "any Kafka client property (`security.protocol`, `sasl.mechanism`, `sasl.jaas.config`,"
          + " `ssl.truststore.location`, `group.protocol`, ...), given to the consumer, the"
          + " dead-letter producer and the start-up checks; environment variable"
          + " `SIGLO_KAFKA_PROPERTIES_` + the name in capitals with `_` for `.`",
      true),
  /** Share consumer's poll size. */
  KAFKA_SHARE_MAX_IN_FLIGHT(
      "siglo.kafka.share.max-in-flight",
      "concurrency × " + SigloKafkaShareConsumer.DEFAULT_IN_FLIGHT_PER_WORKER,
      "`kafka-share`: the most records acquired at once (the poll size); each one's acquisition"
          + " lock runs from its poll"),
  /** Share group's offset reset. */
  KAFKA_SHARE_AUTO_OFFSET_RESET(
      "siglo.kafka.share.auto-offset-reset",
      SigloKafkaShareConsumer.DEFAULT_AUTO_OFFSET_RESET,
      "`kafka-share`: the `share.auto.offset.reset` set on a share group that has none of its"
          + " own (`earliest`, `latest`, `by_duration:<ISO duration>`), or `none` to leave the"
          + " group's configuration alone"),
  /** Kafka ordering. */
  KAFKA_ORDERING(
      "siglo.kafka.ordering",
      SigloKafkaConsumer.DEFAULT_ORDERING.name(),
      "`KEY`, `PARTITION` or `UNORDERED` (not with `kafka-share`)"),
  /** Dead-letter topic suffix. */
  KAFKA_DLT_SUFFIX(
      "siglo.kafka.dead-letter-suffix",
      SigloKafkaConsumer.DEFAULT_DEAD_LETTER_SUFFIX,
      "a topic's dead letters go to `<topic><suffix>`"),
  /** Copy declines to the DLT. */
  KAFKA_DLT_DECLINES(
      "siglo.kafka.dead-letter-declines",
      "false",
      "also copy permanent declines to the dead-letter topic"),
  /** Whether missing dead-letter topics are created at start. */
  KAFKA_CREATE_DLT(
      "siglo.kafka.create-dead-letter-topics",
      "false",
      "create missing dead-letter topics at start (else a missing one stops the launcher at"
          + " start)"),
  /** SQS endpoint. */
  SQS_ENDPOINT(
      "siglo.sqs.endpoint", "(AWS default)", "SQS endpoint override (for example ElasticMQ)"),
  /** SQS region. */
  SQS_REGION("siglo.sqs.region", "(AWS default)", "AWS region"),
  /** SQS queue. */
  SQS_QUEUE("siglo.sqs.queue", null, "queue name"),
  /** SQS dead-letter queue by name. */
  SQS_DLQ(
      "siglo.sqs.dead-letter-queue",
      "(redrive policy)",
      "Siglo's own dead-letter queue, by name (or `siglo.sqs.dead-letter-queue-url`)"),
  /** SQS dead-letter queue by URL. */
  SQS_DLQ_URL(
      "siglo.sqs.dead-letter-queue-url", "(redrive policy)", "Siglo's own dead-letter queue URL"),
  /** Copy declines to the DLQ. */
  SQS_DLQ_DECLINES(
      "siglo.sqs.dead-letter-declines",
      "false",
      "also copy permanent declines to Siglo's dead-letter queue"),
  /** SQS long-poll wait. */
  SQS_WAIT(
      "siglo.sqs.wait-time",
      SigloSqsConsumer.DEFAULT_WAIT_TIME.toString(),
      "long-polling wait (ISO-8601 duration, at most 20 s)"),
  /** SQS visibility timeout the heartbeat extends to. */
  SQS_VISIBILITY_TIMEOUT(
      "siglo.sqs.visibility-timeout",
      "(the queue's)",
      "visibility timeout that heartbeats extend a running message's to"),
  /** SQS heartbeat fraction. */
  SQS_HEARTBEAT_FRACTION(
      "siglo.sqs.heartbeat-fraction",
      String.valueOf(SigloSqsConsumer.DEFAULT_HEARTBEAT_FRACTION),
      "extend the visibility when a handler has run this fraction of it (0.1 to 0.9)");

  private final String key;
  private final String defaultValue;
  private final String description;
  private final boolean secret;

  LauncherKey(String key, String defaultValue, String description) {
    this(key, defaultValue, description, false);
  }

  LauncherKey(String key, String defaultValue, String description, boolean secret) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
    this.secret = secret;
  }

  /**
   * @return whether the value is a secret: never printed, masked in the start-up summary (for
   *     {@link #KAFKA_PROPERTIES}, the properties whose names say password, secret or jaas)
   */
  public boolean secret() {
    return secret;
  }

  /**
   * @return the property key
   */
  public String key() {
    return key;
  }

  /**
   * @return the default, or {@code null} when required
   */
  public String defaultValue() {
    return defaultValue;
  }

  /**
   * @return what it means
   */
  public String description() {
    return description;
  }

  /**
   * @return the environment variable that overrides it ({@code SIGLO_KAFKA_GROUP_ID}, ...)
   */
  public String environmentVariable() {
    return key.toUpperCase(java.util.Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * @return the older name the key is also read under, or null: {@code siglo.store} and {@code
   *     siglo.key}, which a YAML file cannot hold next to {@code store.redis.*} or {@code
   *     key.namespace}
   */
  public String alias() {
    return switch (this) {
      case STORE -> "siglo.store";
      case KEY -> "siglo.key";
      default -> null;
    };
  }

  /**
   * @return the reference table in Markdown, one row per key
   */
  public static String markdownTable() {
    StringBuilder sb =
        new StringBuilder(
            "| key | environment variable | default | meaning |\n|---|---|---|---|\n");
    for (LauncherKey k : values()) {
      sb.append("| `")
          .append(k.key)
          .append("` | `")
          .append(k.environmentVariable())
          .append("` | ")
          .append(k.defaultValue == null ? "required" : k.defaultValue)
          .append(" | ")
          .append(k.description)
          .append(" |\n");
    }
    return sb.toString();
  }
}
