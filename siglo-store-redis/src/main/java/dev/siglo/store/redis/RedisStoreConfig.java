package dev.siglo.store.redis;

import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.OutcomeCodec;
import dev.siglo.consumer.support.Durations;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.SslOptions;

/**
 * Settings of a {@link RedisIdempotencyStore}, immutable once built. Every setter validates its
 * argument. The password is never printed: {@link #toString()} masks it.
 *
 * <p>Defaults: {@code 127.0.0.1:6379}, database 0, key prefix {@value #DEFAULT_KEY_PREFIX}, pool of
 * {@value #DEFAULT_POOL_SIZE} connections, 2 s connect and socket timeouts, no TLS, no AUTH, the
 * server's clock ({@code TIME}) for expiry, the JSON outcome codec.
 */
public final class RedisStoreConfig {
  /** Prefix of every Redis key the store writes; {@code clear()} deletes only keys under it. */
  public static final String DEFAULT_KEY_PREFIX = "siglo:";

  /** Default connection pool size. */
  public static final int DEFAULT_POOL_SIZE = 16;

  /** Default connect and socket timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * Default grace added to a record's lifetime for Redis's own expiry (garbage collection only).
   */
  public static final Duration DEFAULT_GC_GRACE = Duration.ofHours(1);

  private final String host;
  private final int port;
  private final int database;
  private final String keyPrefix;
  private final int poolSize;
  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final String user;
  private final String password;
  private final SslOptions tls;
  private final Clock clock;
  private final OutcomeCodec codec;
  private final Duration gcGrace;
  private final Set<HostAndPort> clusterNodes;
  private final int replicaAcks;
  private final String sentinelMaster;
  private final boolean colocateSteps;
  private final Set<HostAndPort> sentinels;
  private final Duration replicaAckTimeout;
  private final boolean hashRecords;

  private RedisStoreConfig(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.database = b.database;
    this.keyPrefix = b.keyPrefix;
    this.poolSize = b.poolSize;
    this.connectTimeout = b.connectTimeout;
    this.socketTimeout = b.socketTimeout;
    this.user = b.user;
    this.password = b.password;
    this.tls = b.tls;
    this.clock = b.clock;
    this.codec = b.codec;
    this.gcGrace = b.gcGrace;
    this.clusterNodes = Set.copyOf(b.clusterNodes);
    this.replicaAcks = b.replicaAcks;
    this.sentinelMaster = b.sentinelMaster;
    this.colocateSteps = b.colocateSteps;
    this.sentinels = Set.copyOf(b.sentinels);
    this.replicaAckTimeout = b.replicaAckTimeout;
    this.hashRecords = b.hashRecords;
  }

  /**
   * @return whether records are written as Redis hashes, the format of Siglo 1.0 (see {@link
   *     Builder#hashRecords})
   */
  public boolean hashRecords() {
    return hashRecords;
  }

  /**
   * @return the master name the sentinels know the primary by, or null when not through Sentinel
   */
  public String sentinelMaster() {
    return sentinelMaster;
  }

  /**
   * @return whether a message's step records share its record's hash slot (see {@link
   *     Builder#colocateSteps})
   */
  public boolean colocateSteps() {
    return colocateSteps;
  }

  /**
   * @return the sentinels to ask for the primary, or empty when not through Sentinel
   */
  public Set<HostAndPort> sentinels() {
    return sentinels;
  }

  /**
   * @return how many replicas must acknowledge each claim and completion before it counts (0: none,
   *     the default)
   */
  public int replicaAcks() {
    return replicaAcks;
  }

  /**
   * @return how long a claim or completion waits for those acknowledgements
   */
  public Duration replicaAckTimeout() {
    return replicaAckTimeout;
  }

  /**
   * @return the Redis Cluster nodes to discover the cluster from, or empty for a standalone server
   *     ({@link #host()} and {@link #port()})
   */
  public Set<HostAndPort> clusterNodes() {
    return clusterNodes;
  }

  /**
   * @return a builder with the defaults
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * @return the host
   */
  public String host() {
    return host;
  }

  /**
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * @return the database index
   */
  public int database() {
    return database;
  }

  /**
   * @return the key prefix
   */
  public String keyPrefix() {
    return keyPrefix;
  }

  /**
   * @return the connection pool size
   */
  public int poolSize() {
    return poolSize;
  }

  /**
   * @return the connect timeout
   */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * @return the socket (read) timeout, also the longest wait for a pooled connection
   */
  public Duration socketTimeout() {
    return socketTimeout;
  }

  /**
   * @return the ACL user, or {@code null} for the default user
   */
  public String user() {
    return user;
  }

  /**
   * @return whether a password is set (for a summary that must not show it)
   */
  public boolean hasPassword() {
    return password != null;
  }

  /**
   * @return the password, or {@code null}; never log it
   */
  String password() {
    return password;
  }

  /**
   * @return the TLS options, or {@code null} for a plain connection
   */
  public SslOptions tls() {
    return tls;
  }

  /**
   * @return the clock deciding expiry, or {@code null} for the Redis server's clock
   */
  public Clock clock() {
    return clock;
  }

  /**
   * @return the outcome codec
   */
  public OutcomeCodec codec() {
    return codec;
  }

  /**
   * @return the grace added to records' lifetime for Redis's own expiry
   */
  public Duration gcGrace() {
    return gcGrace;
  }

  @Override
  public String toString() {
    return "RedisStoreConfig["
        + (tls != null ? "rediss://" : "redis://")
        + (user == null ? "" : user + "@")
        + (!clusterNodes.isEmpty()
            ? "cluster" + clusterNodes
            : sentinelMaster != null
                ? "sentinel:" + sentinelMaster + sentinels + "/" + database
                : host + ":" + port + "/" + database)
        + (replicaAcks == 0 ? "" : ", replicaAcks=" + replicaAcks + " within " + replicaAckTimeout)
        + (colocateSteps ? ", colocateSteps" : "")
        + (hashRecords ? ", hashRecords" : "")
        + ", password="
        + (password == null ? "none" : "****")
        + ", keyPrefix="
        + keyPrefix
        + ", poolSize="
        + poolSize
        + ", connectTimeout="
        + connectTimeout
        + ", socketTimeout="
        + socketTimeout
        + ", clock="
        + (clock == null ? "server" : clock)
        + "]";
  }

  /** Builds a {@link RedisStoreConfig}. Not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 6379;
    private int database;
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private int poolSize = DEFAULT_POOL_SIZE;
    private Duration connectTimeout = DEFAULT_TIMEOUT;
    private Duration socketTimeout = DEFAULT_TIMEOUT;
    private String user;
    private String password;
    private SslOptions tls;
    private Clock clock;
    private OutcomeCodec codec = JsonOutcomeCodec.of();
    private Duration gcGrace = DEFAULT_GC_GRACE;
    private Set<HostAndPort> clusterNodes = Set.of();
    private int replicaAcks;
    private String sentinelMaster;
    private boolean colocateSteps;
    private Set<HostAndPort> sentinels = Set.of();
    private Duration replicaAckTimeout = DEFAULT_TIMEOUT;
    private boolean hashRecords;

    private Builder() {}

    /**
     * @param host the Redis host
     * @param port the Redis port, 1 to 65535
     * @return this builder
     */
    public Builder hostAndPort(String host, int port) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be 1 to 65535, was " + port);
      }
      this.host = host;
      this.port = port;
      return this;
    }

    /**
     * Sets host, port and what else the URL gives: {@code redis://[user[:password]@]host:port[/db]}
     * or {@code rediss://...} for TLS. The user and password are URL-decoded; parts the URL does
     * not give keep their values.
     *
     * @param url the URL
     * @return this builder
     * @throws IllegalArgumentException when it is not such a URL (the message never holds the URL,
     *     which may hold a password)
     */
    public Builder url(String url) {
      Objects.requireNonNull(url, "url");
      java.net.URI uri;
      try {
        uri = java.net.URI.create(url);
      } catch (IllegalArgumentException e) {
        uri = null;
      }
      if (uri == null
          || !("redis".equals(uri.getScheme()) || "rediss".equals(uri.getScheme()))
          || uri.getHost() == null
          || uri.getPort() < 1) {
        throw new IllegalArgumentException(
            "the Redis URL must look like redis://host:port or rediss://user:password@host:port/0");
      }
      String path = uri.getPath() == null ? "" : uri.getPath().replace("/", "");
      int db = database;
      if (!path.isEmpty()) {
        try {
          db = Integer.parseInt(path);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "the Redis URL's database '" + path + "' is not a number");
        }
      }
      hostAndPort(uri.getHost(), uri.getPort());
      database(db);
      if (uri.getRawUserInfo() != null) {
        String[] up = uri.getRawUserInfo().split(":", 2);
        String u = java.net.URLDecoder.decode(up[0], java.nio.charset.StandardCharsets.UTF_8);
        credentials(
            u.isEmpty() ? user : u,
            up.length > 1
                ? java.net.URLDecoder.decode(up[1], java.nio.charset.StandardCharsets.UTF_8)
                : password);
      }
      if (uri.getScheme().equals("rediss") && tls == null) {
        tls(true);
      }
      return this;
    }

    /**
     * @param database the database index, 0 to 15 on a default Redis
     * @return this builder
     */
    public Builder database(int database) {
      if (database < 0) {
        throw new IllegalArgumentException("database must not be negative, was " + database);
      }
      this.database = database;
      return this;
    }

    /**
     * @param keyPrefix prefix of every Redis key the store writes; 1 to 64 printable characters
     * @return this builder
     */
    public Builder keyPrefix(String keyPrefix) {
      Objects.requireNonNull(keyPrefix, "keyPrefix");
      if (keyPrefix.isEmpty()
          || keyPrefix.length() > 64
          || !keyPrefix.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
        throw new IllegalArgumentException(
            "keyPrefix must be 1 to 64 printable ASCII characters without spaces: '"
                + keyPrefix
                + "'");
      }
      this.keyPrefix = keyPrefix;
      return this;
    }

    /**
     * @param poolSize the connection pool size, at least 1
     * @return this builder
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * @param connectTimeout connect timeout, positive
     * @param socketTimeout socket timeout and longest wait for a pooled connection, positive
     * @return this builder
     */
    public Builder timeouts(Duration connectTimeout, Duration socketTimeout) {
      this.connectTimeout = Durations.requirePositive(connectTimeout, "connectTimeout");
      this.socketTimeout = Durations.requirePositive(socketTimeout, "socketTimeout");
      return this;
    }

    /**
     * @param user the ACL user, or {@code null} for the default user
     * @param password the password, or {@code null}
     * @return this builder
     */
    public Builder credentials(String user, String password) {
      this.user = user;
      this.password = password;
      return this;
    }

    /**
     * @param tls whether to connect with TLS, trusting the JVM's default trust store
     * @return this builder
     */
    public Builder tls(boolean tls) {
      this.tls = tls ? SslOptions.defaults() : null;
      return this;
    }

    /**
     * @param options TLS with these trust store, key store and verification settings; {@code null}
     *     for a plain connection
     * @return this builder
     */
    public Builder tls(SslOptions options) {
      this.tls = options;
      return this;
    }

    /**
     * @param clock the clock deciding expiry; {@code null} (the default) uses the Redis server's
     *     clock, one clock for every process
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * @param codec the outcome codec
     * @return this builder
     */
    public Builder codec(OutcomeCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * @param gcGrace grace added to records' lifetime for Redis's own expiry, positive
     * @return this builder
     */
    public Builder gcGrace(Duration gcGrace) {
      this.gcGrace = Durations.requirePositive(gcGrace, "gcGrace");
      return this;
    }

    /**
     * Runs the store on a Redis Cluster: the client discovers the topology from these nodes (any of
     * them; the others are found), follows {@code MOVED} and {@code ASK} redirections and
     * failovers, and the store splits each batch by hash slot. Replaces {@link #hostAndPort}.
     *
     * @param nodes one or more nodes of the cluster
     * @return this builder
     */
    public Builder cluster(Collection<HostAndPort> nodes) {
      Objects.requireNonNull(nodes, "nodes");
      if (nodes.isEmpty()) {
        throw new IllegalArgumentException("cluster needs at least one node");
      }
      nodes.forEach(n -> Objects.requireNonNull(n, "cluster node"));
      this.clusterNodes = new LinkedHashSet<>(nodes);
      return this;
    }

    /**
     * Runs the store on the primary that Redis Sentinel names: the client asks the sentinels for
     * {@code masterName}'s address, and follows a failover by itself (the sentinels announce the
     * promoted replica; connections move to it). Replaces {@link #hostAndPort}.
     *
     * @param masterName the name the sentinels monitor the primary under
     * @param sentinels one or more sentinels
     * @return this builder
     */
    public Builder sentinel(String masterName, Collection<HostAndPort> sentinels) {
      if (masterName == null || masterName.isBlank()) {
        throw new IllegalArgumentException("sentinel master name must not be blank");
      }
      Objects.requireNonNull(sentinels, "sentinels");
      if (sentinels.isEmpty()) {
        throw new IllegalArgumentException("sentinel needs at least one sentinel");
      }
      sentinels.forEach(n -> Objects.requireNonNull(n, "sentinel"));
      this.sentinelMaster = masterName;
      this.sentinels = new LinkedHashSet<>(sentinels);
      return this;
    }

    /**
     * Puts a message's step records in the hash slot of its own record (off by default): the store
     * wraps the message's part of every key in a hash tag ({@code <prefix>{<message
     * key>}:step:...}), so on a Redis Cluster a message and its steps live on one node, in one slot
     * group of a batch. The keys change with it: switch it on for a new key prefix, not for records
     * already written under this one.
     *
     * @param colocateSteps whether to tag keys
     * @return this builder
     */
    public Builder colocateSteps(boolean colocateSteps) {
      this.colocateSteps = colocateSteps;
      return this;
    }

    /**
     * Writes records as Redis hashes, the format Siglo 1.0 reads and writes (off by default: a
     * record is one string, and a claim of a new key is one native {@code SET NX PX} instead of a
     * script, about half the server's CPU per message). The store reads both formats whatever this
     * says, so a rolling upgrade from 1.0 goes in two steps: deploy with {@code hashRecords(true)}
     * until no 1.0 process is left, then without it. A 1.0 process cannot read a string record.
     *
     * @param hashRecords whether to write hashes
     * @return this builder
     */
    public Builder hashRecords(boolean hashRecords) {
      this.hashRecords = hashRecords;
      return this;
    }

    /**
     * Failover-safe claims (off by default): each claim and completion waits until {@code replicas}
     * replicas of its primary acknowledged it ({@code WAIT}, on the connection that wrote it).
     * Redis replicates asynchronously, so without it a claim acknowledged by a primary that dies
     * before its replica copied it is lost on failover, and a duplicate can then run; with it, a
     * failover loses no acknowledged claim, at the price of a replica round trip per batch. Fewer
     * acknowledgements within {@code timeout} is a transient store failure (the message is retried;
     * the claim it made may hold its key until the lease ends).
     *
     * @param replicas replicas that must acknowledge, 0 to turn it off
     * @param timeout the longest wait for them, positive
     * @return this builder
     */
    public Builder replicaAcks(int replicas, Duration timeout) {
      if (replicas < 0) {
        throw new IllegalArgumentException("replicaAcks must be 0 or more, was " + replicas);
      }
      this.replicaAcks = replicas;
      this.replicaAckTimeout = Durations.requirePositive(timeout, "replicaAckTimeout");
      return this;
    }

    /**
     * @return the configuration
     * @throws IllegalArgumentException when a password is given for a user that is blank, or a
     *     database other than 0 for a cluster
     */
    public RedisStoreConfig build() {
      if (user != null && user.isBlank()) {
        throw new IllegalArgumentException("user must not be blank when given");
      }
      if (!clusterNodes.isEmpty() && sentinelMaster != null) {
        throw new IllegalArgumentException(
            "cluster and sentinel exclude each other: a Redis Cluster fails over by itself");
      }
      if (!clusterNodes.isEmpty() && database != 0) {
        throw new IllegalArgumentException(
            "database must be 0 on a Redis Cluster (it has no other), was " + database);
      }
      return new RedisStoreConfig(this);
    }
  }
}
