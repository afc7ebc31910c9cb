package dev.siglo.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code siglo.*} properties: the store every consumer shares, the SQS client's endpoint, and
 * the consumers by name under {@code siglo.consumers.<name>.*}. Defaults are the runtimes' own.
 * Bound once at start-up; {@link SigloConsumers} checks each consumer's combination and fails the
 * start-up naming the property when it is wrong.
 */
@ConfigurationProperties("siglo")
public class SigloProperties {
  /** Whether the starter configures anything at all. */
  private boolean enabled = true;

  /**
   * Whether the consumers start with the application context (else call {@link
   * SigloConsumers#start()}).
   */
  private boolean autoStartup = true;

  private final Store store = new Store();
  private final Sqs sqs = new Sqs();
  private final Map<String, Consumer> consumers = new LinkedHashMap<>();
  private final Consumer defaults = new Consumer();

  /**
   * @return whether the starter is on
   */
  public boolean isEnabled() {
    return enabled;
  }

  /**
   * @param enabled whether the starter is on
   */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * @return whether the consumers start with the context
   */
  public boolean isAutoStartup() {
    return autoStartup;
  }

  /**
   * @param autoStartup whether the consumers start with the context
   */
  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  /**
   * @return the store settings
   */
  public Store getStore() {
    return store;
  }

  /**
   * @return the SQS client settings
   */
  public Sqs getSqs() {
    return sqs;
  }

  /**
   * @return the consumers by name
   */
  public Map<String, Consumer> getConsumers() {
    return consumers;
  }

  /**
   * What every consumer starts from: a {@code siglo.consumers.<name>.*} property overrides its
   * {@code siglo.defaults.*} one (lists are replaced, {@code properties} maps merged). The keys are
   * a consumer's keys, so IDEs complete a consumer's properties from here.
   *
   * @return the defaults
   */
  public Consumer getDefaults() {
    return defaults;
  }

  /** Which idempotency store the consumers share. */
  public enum StoreType {
    /** In this process only: duplicates across processes are not suppressed. */
    MEMORY,
    /**
     * Redis (standalone, cluster), from {@code siglo.store.redis.*} or {@code spring.data.redis.*}.
     */
    REDIS,
    /** PostgreSQL on the application's {@code DataSource}. */
    POSTGRES
  }

  /** The idempotency store: {@code siglo.store.*}. */
  public static class Store {
    /** The store kind: memory, redis or postgres. */
    private StoreType type = StoreType.MEMORY;

    private final Redis redis = new Redis();
    private final Postgres postgres = new Postgres();

    /**
     * @return the kind
     */
    public StoreType getType() {
      return type;
    }

    /**
     * @param type the kind
     */
    public void setType(StoreType type) {
      this.type = type;
    }

    /**
     * @return the Redis settings
     */
    public Redis getRedis() {
      return redis;
    }

    /**
     * @return the PostgreSQL settings
     */
    public Postgres getPostgres() {
      return postgres;
    }
  }

  /** The Redis store: {@code siglo.store.redis.*}; unset connection keys come from Boot's. */
  public static class Redis {
    /**
     * redis://[user[:password]@]host:port[/db] or rediss://...; when unset (and no cluster nodes),
     * spring.data.redis.* is used.
     */
    private String url;

    /** Redis Cluster nodes as host:port (instead of url). */
    private List<String> clusterNodes = new ArrayList<>();

    /** Prefix of every key the store writes. */
    private String keyPrefix = "siglo:";

    /** Connection pool size. */
    private int poolSize = 16;

    /** Connect and socket timeout. */
    private Duration timeout = Duration.ofSeconds(2);

    /** Whether records are Redis hashes (readable with HGETALL) instead of packed strings. */
    private boolean hashRecords;

    /**
     * @return the URL, or null
     */
    public String getUrl() {
      return url;
    }

    /**
     * @param url the URL
     */
    public void setUrl(String url) {
      this.url = url;
    }

    /**
     * @return the cluster nodes
     */
    public List<String> getClusterNodes() {
      return clusterNodes;
    }

    /**
     * @param clusterNodes the cluster nodes
     */
    public void setClusterNodes(List<String> clusterNodes) {
      this.clusterNodes = clusterNodes;
    }

    /**
     * @return the key prefix
     */
    public String getKeyPrefix() {
      return keyPrefix;
    }

    /**
     * @param keyPrefix the key prefix
     */
    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    /**
     * @return the pool size
     */
    public int getPoolSize() {
      return poolSize;
    }

    /**
     * @param poolSize the pool size
     */
    public void setPoolSize(int poolSize) {
      this.poolSize = poolSize;
    }

    /**
     * @return the timeout
     */
    public Duration getTimeout() {
      return timeout;
    }

    /**
     * @param timeout the timeout
     */
    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    /**
     * @return whether records are hashes
     */
    public boolean isHashRecords() {
      return hashRecords;
    }

    /**
     * @param hashRecords whether records are hashes
     */
    public void setHashRecords(boolean hashRecords) {
      this.hashRecords = hashRecords;
    }
  }

  /** The PostgreSQL store on the application's DataSource: {@code siglo.store.postgres.*}. */
  public static class Postgres {
    /** The record table. */
    private String table = "siglo_idempotency";

    /** The table's schema (else the connection's search path). */
    private String schema;

    /** Whether the table is created at start when missing. */
    private boolean createTable = true;

    /** Range-partition the table by expiry, one partition per width (whole seconds). */
    private Duration partitionWidth;

    /** How often expired rows are purged (expired partitions dropped). */
    private Duration purgeInterval = Duration.ofMinutes(5);

    /** How long past expiry a row is kept before a purge removes it. */
    private Duration purgeGrace = Duration.ofHours(1);

    /**
     * @return the table
     */
    public String getTable() {
      return table;
    }

    /**
     * @param table the table
     */
    public void setTable(String table) {
      this.table = table;
    }

    /**
     * @return the schema, or null
     */
    public String getSchema() {
      return schema;
    }

    /**
     * @param schema the schema
     */
    public void setSchema(String schema) {
      this.schema = schema;
    }

    /**
     * @return whether the table is created
     */
    public boolean isCreateTable() {
      return createTable;
    }

    /**
     * @param createTable whether the table is created
     */
    public void setCreateTable(boolean createTable) {
      this.createTable = createTable;
    }

    /**
     * @return the partition width, or null for one table
     */
    public Duration getPartitionWidth() {
      return partitionWidth;
    }

    /**
     * @param partitionWidth the partition width
     */
    public void setPartitionWidth(Duration partitionWidth) {
      this.partitionWidth = partitionWidth;
    }

    /**
     * @return the purge interval
     */
    public Duration getPurgeInterval() {
      return purgeInterval;
    }

    /**
     * @param purgeInterval the purge interval
     */
    public void setPurgeInterval(Duration purgeInterval) {
      this.purgeInterval = purgeInterval;
    }

    /**
     * @return the purge grace
     */
    public Duration getPurgeGrace() {
      return purgeGrace;
    }

    /**
     * @param purgeGrace the purge grace
     */
    public void setPurgeGrace(Duration purgeGrace) {
      this.purgeGrace = purgeGrace;
    }
  }

  /** The SQS client, when the application has no {@code SqsClient} bean: {@code siglo.sqs.*}. */
  public static class Sqs {
    /** Endpoint override (ElasticMQ, LocalStack); else spring.cloud.aws.sqs.endpoint, else AWS. */
    private String endpoint;

    /** AWS region; else spring.cloud.aws.region.static, else the SDK's default chain. */
    private String region;

    /**
     * @return the endpoint, or null
     */
    public String getEndpoint() {
      return endpoint;
    }

    /**
     * @param endpoint the endpoint
     */
    public void setEndpoint(String endpoint) {
      this.endpoint = endpoint;
    }

    /**
     * @return the region, or null
     */
    public String getRegion() {
      return region;
    }

    /**
     * @param region the region
     */
    public void setRegion(String region) {
      this.region = region;
    }
  }

  /** Which broker a consumer reads. */
  public enum Broker {
    /** A Kafka consumer group ({@code topics}). */
    KAFKA,
    /** An SQS queue ({@code queue}). */
    SQS
  }

  /** The threads a consumer's handlers run on. */
  public enum WorkerThreadKind {
    /** A fixed pool of {@code concurrency} platform threads. */
    PLATFORM,
    /** A virtual thread per running handler, at most {@code concurrency} at once (JDK 21+). */
    VIRTUAL
  }

  /** How a consumer's messages are traced, when the application has an OpenTelemetry bean. */
  public enum Tracing {
    /** No spans. */
    OFF,
    /** The message span's parent is the producer's traceparent. */
    PARENT,
    /** The message span starts a trace linked to the producer's. */
    LINK
  }

  /** One consumer: {@code siglo.consumers.<name>.*}. */
  public static class Consumer {
    /** kafka or sqs; when unset, kafka if topics are set, sqs if a queue is. */
    private Broker broker;

    /**
     * The handler bean's name (a MessageHandler, AsyncMessageHandler or BatchMessageHandler); may
     * be left out when the context has exactly one.
     */
    private String handler;

    /**
     * The payload type: String (UTF-8), byte[], or a class decoded from JSON with Jackson; default
     * the handler's type argument (String when it has none).
     */
    private Class<?> payloadType;

    /**
     * Where the idempotency key is, first present wins: header:NAME, attribute:NAME,
     * json-pointer:/PATH, record-key, deduplication-id, message-id. Default: the broker's (Kafka's
     * idempotency-key header then the record key; SQS's attribute, deduplication id, message id).
     */
    private String keySource;

    /** Namespace of the stored keys (consumers sharing a store keep apart by it). */
    private String keyNamespace;

    /** Version of the stored keys (a new version starts afresh). */
    private String keyVersion;

    /** Handlers running at once. */
    private int concurrency = 16;

    /**
     * The threads handlers run on: PLATFORM (a fixed pool) or VIRTUAL (a virtual thread per running
     * handler, JDK 21+; refused at start on an older JVM).
     */
    private WorkerThreadKind workerThreads = WorkerThreadKind.PLATFORM;

    /**
     * A BatchMessageHandler's most messages at once (at most one per key, partition or FIFO group);
     * concurrency is then the batches running at once.
     */
    private int batchSize = 100;

    /** How long a BatchMessageHandler's batch that is not full waits for more messages. */
    private Duration batchLinger = Duration.ofMillis(10);

    /**
     * How long an AsyncMessageHandler's stage may take; past it the stage is cancelled and the
     * message fails transiently.
     */
    private Duration asyncTimeout = Duration.ofMinutes(1);

    /** Kafka ordering: KEY, PARTITION or UNORDERED. */
    private String ordering = "KEY";

    /** Tracing with the application's OpenTelemetry bean: off, parent or link. */
    private Tracing tracing = Tracing.PARENT;

    /** Kafka topics. */
    private List<String> topics = new ArrayList<>();

    /** Kafka consumer group; default the consumer's name. */
    private String groupId;

    /** Kafka bootstrap servers; default Boot's (spring.kafka.bootstrap-servers). */
    private List<String> bootstrapServers = new ArrayList<>();

    /** Kafka client properties for this consumer, over Boot's spring.kafka.* ones. */
    private Map<String, String> properties = new LinkedHashMap<>();

    /** A topic's dead letters go to TOPIC + this suffix. */
    private String deadLetterTopicSuffix = "-dlt";

    /** Whether missing dead-letter topics are created at start. */
    private boolean createDeadLetterTopics;

    /** Whether permanent declines are copied to the dead-letter topic or queue. */
    private boolean deadLetterDeclines;

    /** SQS queue, by name or URL. */
    private String queue;

    /** Siglo's own SQS dead-letter queue, by name or URL; else the queue's redrive policy. */
    private String deadLetterQueue;

    /** SQS long-poll wait, at most 20 s. */
    private Duration waitTime = Duration.ofSeconds(20);

    /**
     * SQS visibility timeout that heartbeats extend a running message's to; default the queue's.
     */
    private Duration visibilityTimeout;

    /** Extend the SQS visibility when a handler has run this fraction of it (0.1 to 0.9). */
    private double heartbeatFraction = 0.5;

    private final Retry retry = new Retry();
    private final Idempotency idempotency = new Idempotency();
    private final Classification classification = new Classification();

    /**
     * @return the broker, or null to infer it
     */
    public Broker getBroker() {
      return broker;
    }

    /**
     * @param broker the broker
     */
    public void setBroker(Broker broker) {
      this.broker = broker;
    }

    /**
     * @return the handler bean name, or null
     */
    public String getHandler() {
      return handler;
    }

    /**
     * @param handler the handler bean name
     */
    public void setHandler(String handler) {
      this.handler = handler;
    }

    /**
     * @return the payload type
     */
    public Class<?> getPayloadType() {
      return payloadType;
    }

    /**
     * @param payloadType the payload type
     */
    public void setPayloadType(Class<?> payloadType) {
      this.payloadType = payloadType;
    }

    /**
     * @return the key source list, or null for the broker's default
     */
    public String getKeySource() {
      return keySource;
    }

    /**
     * @param keySource the key source list
     */
    public void setKeySource(String keySource) {
      this.keySource = keySource;
    }

    /**
     * @return the key namespace, or null
     */
    public String getKeyNamespace() {
      return keyNamespace;
    }

    /**
     * @param keyNamespace the key namespace
     */
    public void setKeyNamespace(String keyNamespace) {
      this.keyNamespace = keyNamespace;
    }

    /**
     * @return the key version, or null
     */
    public String getKeyVersion() {
      return keyVersion;
    }

    /**
     * @param keyVersion the key version
     */
    public void setKeyVersion(String keyVersion) {
      this.keyVersion = keyVersion;
    }

    /**
     * @return the concurrency
     */
    public int getConcurrency() {
      return concurrency;
    }

    /**
     * @param concurrency the concurrency
     */
    public void setConcurrency(int concurrency) {
      this.concurrency = concurrency;
    }

    /**
     * @return the worker threads
     */
    public WorkerThreadKind getWorkerThreads() {
      return workerThreads;
    }

    /**
     * @param workerThreads the worker threads
     */
    public void setWorkerThreads(WorkerThreadKind workerThreads) {
      this.workerThreads = workerThreads;
    }

    /**
     * @return the batch size
     */
    public int getBatchSize() {
      return batchSize;
    }

    /**
     * @param batchSize the batch size
     */
    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    /**
     * @return the batch linger
     */
    public Duration getBatchLinger() {
      return batchLinger;
    }

    /**
     * @param batchLinger the batch linger
     */
    public void setBatchLinger(Duration batchLinger) {
      this.batchLinger = batchLinger;
    }

    /**
     * @return the asynchronous handler's stage timeout
     */
    public Duration getAsyncTimeout() {
      return asyncTimeout;
    }

    /**
     * @param asyncTimeout the asynchronous handler's stage timeout
     */
    public void setAsyncTimeout(Duration asyncTimeout) {
      this.asyncTimeout = asyncTimeout;
    }

    /**
     * @return the Kafka ordering
     */
    public String getOrdering() {
      return ordering;
    }

    /**
     * @param ordering the Kafka ordering
     */
    public void setOrdering(String ordering) {
      this.ordering = ordering;
    }

    /**
     * @return the tracing mode
     */
    public Tracing getTracing() {
      return tracing;
    }

    /**
     * @param tracing the tracing mode
     */
    public void setTracing(Tracing tracing) {
      this.tracing = tracing;
    }

    /**
     * @return the Kafka topics
     */
    public List<String> getTopics() {
      return topics;
    }

    /**
     * @param topics the Kafka topics
     */
    public void setTopics(List<String> topics) {
      this.topics = topics;
    }

    /**
     * @return the group id, or null for the consumer's name
     */
    public String getGroupId() {
      return groupId;
    }

    /**
     * @param groupId the group id
     */
    public void setGroupId(String groupId) {
      this.groupId = groupId;
    }

    /**
     * @return the bootstrap servers, or empty for Boot's
     */
    public List<String> getBootstrapServers() {
      return bootstrapServers;
    }

    /**
     * @param bootstrapServers the bootstrap servers
     */
    public void setBootstrapServers(List<String> bootstrapServers) {
      this.bootstrapServers = bootstrapServers;
    }

    /**
     * @return the Kafka client properties
     */
    public Map<String, String> getProperties() {
      return properties;
    }

    /**
     * @param properties the Kafka client properties
     */
    public void setProperties(Map<String, String> properties) {
      this.properties = properties;
    }

    /**
     * @return the dead-letter topic suffix
     */
    public String getDeadLetterTopicSuffix() {
      return deadLetterTopicSuffix;
    }

    /**
     * @param deadLetterTopicSuffix the dead-letter topic suffix
     */
    public void setDeadLetterTopicSuffix(String deadLetterTopicSuffix) {
      this.deadLetterTopicSuffix = deadLetterTopicSuffix;
    }

    /**
     * @return whether missing dead-letter topics are created
     */
    public boolean isCreateDeadLetterTopics() {
      return createDeadLetterTopics;
    }

    /**
     * @param createDeadLetterTopics whether missing dead-letter topics are created
     */
    public void setCreateDeadLetterTopics(boolean createDeadLetterTopics) {
      this.createDeadLetterTopics = createDeadLetterTopics;
    }

    /**
     * @return whether declines are copied to the dead letters
     */
    public boolean isDeadLetterDeclines() {
      return deadLetterDeclines;
    }

    /**
     * @param deadLetterDeclines whether declines are copied to the dead letters
     */
    public void setDeadLetterDeclines(boolean deadLetterDeclines) {
      this.deadLetterDeclines = deadLetterDeclines;
    }

    /**
     * @return the SQS queue, or null
     */
    public String getQueue() {
      return queue;
    }

    /**
     * @param queue the SQS queue
     */
    public void setQueue(String queue) {
      this.queue = queue;
    }

    /**
     * @return the SQS dead-letter queue, or null
     */
    public String getDeadLetterQueue() {
      return deadLetterQueue;
    }

    /**
     * @param deadLetterQueue the SQS dead-letter queue
     */
    public void setDeadLetterQueue(String deadLetterQueue) {
      this.deadLetterQueue = deadLetterQueue;
    }

    /**
     * @return the SQS wait time
     */
    public Duration getWaitTime() {
      return waitTime;
    }

    /**
     * @param waitTime the SQS wait time
     */
    public void setWaitTime(Duration waitTime) {
      this.waitTime = waitTime;
    }

    /**
     * @return the SQS visibility timeout, or null for the queue's
     */
    public Duration getVisibilityTimeout() {
      return visibilityTimeout;
    }

    /**
     * @param visibilityTimeout the SQS visibility timeout
     */
    public void setVisibilityTimeout(Duration visibilityTimeout) {
      this.visibilityTimeout = visibilityTimeout;
    }

    /**
     * @return the heartbeat fraction
     */
    public double getHeartbeatFraction() {
      return heartbeatFraction;
    }

    /**
     * @param heartbeatFraction the heartbeat fraction
     */
    public void setHeartbeatFraction(double heartbeatFraction) {
      this.heartbeatFraction = heartbeatFraction;
    }

    /**
     * @return the retry settings
     */
    public Retry getRetry() {
      return retry;
    }

    /**
     * @return the idempotency settings
     */
    public Idempotency getIdempotency() {
      return idempotency;
    }

    /**
     * @return the classification rules
     */
    public Classification getClassification() {
      return classification;
    }
  }

  /** Retries: {@code siglo.consumers.<name>.retry.*}. */
  public static class Retry {
    /** Attempts within one delivery. */
    private int maxAttempts = 3;

    /** Deliveries before a failing message is dead-lettered. */
    private int maxDeliveries = 5;

    /** Takeovers of an expired claim before the message is dead-lettered as a crash loop. */
    private int maxTakeovers = 3;

    /** First backoff between attempts. */
    private Duration backoff = Duration.ofMillis(100);

    /** Longest backoff between attempts. */
    private Duration maxBackoff = Duration.ofSeconds(2);

    /**
     * @return the attempts per delivery
     */
    public int getMaxAttempts() {
      return maxAttempts;
    }

    /**
     * @param maxAttempts the attempts per delivery
     */
    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /**
     * @return the deliveries
     */
    public int getMaxDeliveries() {
      return maxDeliveries;
    }

    /**
     * @param maxDeliveries the deliveries
     */
    public void setMaxDeliveries(int maxDeliveries) {
      this.maxDeliveries = maxDeliveries;
    }

    /**
     * @return the takeovers
     */
    public int getMaxTakeovers() {
      return maxTakeovers;
    }

    /**
     * @param maxTakeovers the takeovers
     */
    public void setMaxTakeovers(int maxTakeovers) {
      this.maxTakeovers = maxTakeovers;
    }

    /**
     * @return the first backoff
     */
    public Duration getBackoff() {
      return backoff;
    }

    /**
     * @param backoff the first backoff
     */
    public void setBackoff(Duration backoff) {
      this.backoff = backoff;
    }

    /**
     * @return the longest backoff
     */
    public Duration getMaxBackoff() {
      return maxBackoff;
    }

    /**
     * @param maxBackoff the longest backoff
     */
    public void setMaxBackoff(Duration maxBackoff) {
      this.maxBackoff = maxBackoff;
    }
  }

  /** Claims and records: {@code siglo.consumers.<name>.idempotency.*}. */
  public static class Idempotency {
    /** How long a completed key's outcome is kept. */
    private Duration ttl = Duration.ofHours(24);

    /** How long a claim holds before another consumer may take it over (renewed while running). */
    private Duration lease = Duration.ofMinutes(2);

    /** How long a duplicate waits for the running holder's outcome. */
    private Duration settleTimeout = Duration.ofSeconds(10);

    /** How often a waiting duplicate reads the holder's outcome. */
    private Duration pollInterval = Duration.ofMillis(50);

    /**
     * @return the ttl
     */
    public Duration getTtl() {
      return ttl;
    }

    /**
     * @param ttl the ttl
     */
    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }

    /**
     * @return the lease
     */
    public Duration getLease() {
      return lease;
    }

    /**
     * @param lease the lease
     */
    public void setLease(Duration lease) {
      this.lease = lease;
    }

    /**
     * @return the settle timeout
     */
    public Duration getSettleTimeout() {
      return settleTimeout;
    }

    /**
     * @param settleTimeout the settle timeout
     */
    public void setSettleTimeout(Duration settleTimeout) {
      this.settleTimeout = settleTimeout;
    }

    /**
     * @return the poll interval
     */
    public Duration getPollInterval() {
      return pollInterval;
    }

    /**
     * @param pollInterval the poll interval
     */
    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }
  }

  /** Which failures are permanent: {@code siglo.consumers.<name>.classification.*}. */
  public static class Classification {
    /** Exception classes that are permanent declines (cached, acked, not retried). */
    private List<String> permanent = new ArrayList<>();

    /** Exception classes that are transient (claim released, retried). */
    private List<String> transientExceptions = new ArrayList<>();

    /** A regular expression: exception messages containing it are permanent. */
    private String permanentMessagePattern;

    /** A regular expression: exception messages containing it are transient. */
    private String transientMessagePattern;

    /** The class of failures no rule matches: PERMANENT or TRANSIENT. */
    private String defaultClass = "TRANSIENT";

    /**
     * @return the permanent exception classes
     */
    public List<String> getPermanent() {
      return permanent;
    }

    /**
     * @param permanent the permanent exception classes
     */
    public void setPermanent(List<String> permanent) {
      this.permanent = permanent;
    }

    /**
     * @return the transient exception classes ({@code transient} is a Java keyword)
     */
    public List<String> getTransient() {
      return transientExceptions;
    }

    /**
     * @param transientExceptions the transient exception classes
     */
    public void setTransient(List<String> transientExceptions) {
      this.transientExceptions = transientExceptions;
    }

    /**
     * @return the permanent message pattern, or null
     */
    public String getPermanentMessagePattern() {
      return permanentMessagePattern;
    }

    /**
     * @param permanentMessagePattern the permanent message pattern
     */
    public void setPermanentMessagePattern(String permanentMessagePattern) {
      this.permanentMessagePattern = permanentMessagePattern;
    }

    /**
     * @return the transient message pattern, or null
     */
    public String getTransientMessagePattern() {
      return transientMessagePattern;
    }

    /**
     * @param transientMessagePattern the transient message pattern
     */
    public void setTransientMessagePattern(String transientMessagePattern) {
      this.transientMessagePattern = transientMessagePattern;
    }

    /**
     * @return the default class
     */
    public String getDefault() {
      return defaultClass;
    }

    /**
     * @param defaultClass the default class
     */
    public void setDefault(String defaultClass) {
      this.defaultClass = defaultClass;
    }
  }
}
