package dev.siglo.launcher;

import dev.siglo.consumer.RetryConfig;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.store.postgres.PostgresStoreConfig;

/**
 * Every configuration key of the launcher, with its meaning and default: the single source of the
 * reference table in {@code docs/CONFIGURATION.md} (a test keeps the two equal). Classification
 * keys ({@code siglo.classification.*}) are those of {@code ErrorClassifier}.
 */
public enum LauncherKey {
  /** The broker. */
  BROKER("siglo.broker", "kafka", "`kafka` or `sqs`"),
  /** The handler class. */
  HANDLER(
      "siglo.handler",
      null,
      "class implementing `MessageHandler`, with a public no-argument constructor"),
  /** How payloads are decoded. */
  PAYLOAD("siglo.payload", "utf8", "`utf8`, `bytes`, or `json:<class>`"),
  /** Where the key is. */
  KEY(
      "siglo.key",
      "(broker default)",
      "comma-separated, first present wins: `header:<name>`, `attribute:<name>`, `record-key`, `deduplication-id`, `message-id`, `json-pointer:<pointer>`"),
  /** Key namespace. */
  KEY_NAMESPACE("siglo.key.namespace", "(none)", "namespace segment of stored keys"),
  /** Key version. */
  KEY_VERSION("siglo.key.version", "(none)", "version segment of stored keys"),
  /** The store. */
  STORE("siglo.store", "memory", "`memory`, `redis` or `postgres`"),
  /** Redis URL. */
  STORE_REDIS_URL("siglo.store.redis.url", null, "`redis://host:port` (with `siglo.store=redis`)"),
  /** Redis password. */
  STORE_REDIS_PASSWORD(
      "siglo.store.redis.password",
      "none",
      "Redis password (prefer the environment variable `SIGLO_STORE_REDIS_PASSWORD`)"),
  /** Redis record format. */
  STORE_REDIS_HASH_RECORDS(
      "siglo.store.redis.hash-records",
      "false",
      "`true` writes 1.0's hash records, for a rolling upgrade from 1.0 (README)"),
  /** PostgreSQL URL. */
  STORE_POSTGRES_URL(
      "siglo.store.postgres.url",
      null,
      "JDBC URL with `user` and `password` (with `siglo.store=postgres`)"),
  /** PostgreSQL table. */
  STORE_POSTGRES_TABLE(
      "siglo.store.postgres.table",
      PostgresStoreConfig.DEFAULT_TABLE,
      "record table (created when missing)"),
  /** PostgreSQL partitioning. */
  STORE_POSTGRES_PARTITION_WIDTH(
      "siglo.store.postgres.partition-width",
      "(none)",
      "an ISO-8601 duration such as `PT6H`: records in a table partitioned by expiry, one"
          + " partition per width, dropped once expired (a table of its own: README)"),
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
      "worker threads"),
  /** Prometheus port. */
  METRICS_PORT(
      "siglo.metrics.prometheus-port",
      "(off)",
      "serve Micrometer metrics as Prometheus text on this port at `/metrics`"),
  /** Prometheus bind address. */
  METRICS_BIND("siglo.metrics.bind-address", "0.0.0.0", "address the metrics endpoint listens on"),
  /** Kafka bootstrap servers. */
  KAFKA_BOOTSTRAP("siglo.kafka.bootstrap-servers", null, "Kafka bootstrap servers"),
  /** Kafka group. */
  KAFKA_GROUP("siglo.kafka.group-id", null, "consumer group"),
  /** Kafka topics. */
  KAFKA_TOPICS("siglo.kafka.topics", null, "comma-separated topics"),
  /** Kafka ordering. */
  KAFKA_ORDERING(
      "siglo.kafka.ordering",
      SigloKafkaConsumer.DEFAULT_ORDERING.name(),
      "`KEY`, `PARTITION` or `UNORDERED`"),
  /** Copy declines to the DLT. */
  KAFKA_DLT_DECLINES(
      "siglo.kafka.dead-letter-declines",
      "false",
      "also copy permanent declines to `<topic>"
          + SigloKafkaConsumer.DEFAULT_DEAD_LETTER_SUFFIX
          + "`"),
  /** Whether missing dead-letter topics are created at start. */
  KAFKA_CREATE_DLT(
      "siglo.kafka.create-dead-letter-topics",
      "false",
      "create missing dead-letter topics at start (else a missing one stops the consumer)"),
  /** SQS endpoint. */
  SQS_ENDPOINT(
      "siglo.sqs.endpoint", "(AWS default)", "SQS endpoint override (for example ElasticMQ)"),
  /** SQS region. */
  SQS_REGION("siglo.sqs.region", "(AWS default)", "AWS region"),
  /** SQS queue. */
  SQS_QUEUE("siglo.sqs.queue", null, "queue name"),
  /** SQS dead-letter queue. */
  SQS_DLQ(
      "siglo.sqs.dead-letter-queue-url", "(redrive policy)", "Siglo's own dead-letter queue URL"),
  /** SQS long-poll wait. */
  SQS_WAIT(
      "siglo.sqs.wait-time",
      SigloSqsConsumer.DEFAULT_WAIT_TIME.toString(),
      "long-polling wait (ISO-8601 duration, at most 20 s)");

  private final String key;
  private final String defaultValue;
  private final String description;

  LauncherKey(String key, String defaultValue, String description) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.description = description;
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
