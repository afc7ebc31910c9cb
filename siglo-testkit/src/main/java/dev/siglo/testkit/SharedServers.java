package dev.siglo.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One Kafka broker, one ElasticMQ, one Redis and one PostgreSQL per test JVM, started on first use
 * and stopped when the JVM exits, as the Kafka clients' own integration suites share a cluster.
 *
 * <p>Contract: a test that uses a shared server isolates itself by name (its own topics, groups,
 * queues, key prefixes or tables) and never stops, restarts, flushes or reconfigures the server; a
 * test that does starts a server of its own ({@link RedisServerExtension#owned}, {@code new
 * PostgresServerExtension(true)}, or the server's {@code start()}) and closes it. With the external
 * endpoints of {@link KafkaBroker#ENV_BOOTSTRAP}, {@link SqsServer#ENV_ENDPOINT}, {@link
 * RedisServer#ENV_URL} or {@link PostgresServer#ENV_URL} set, those are shared instead.
 */
public final class SharedServers {
  private static final Map<Class<?>, AutoCloseable> STARTED = new HashMap<>();
  private static final Deque<AutoCloseable> STOP_ORDER = new ArrayDeque<>();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(SharedServers::stopAll, "siglo-shared-servers-stop"));
  }

  private SharedServers() {}

  /**
   * @return this JVM's Kafka broker (in-process, or the external cluster)
   */
  public static KafkaBroker kafka() {
    return shared(KafkaBroker.class, KafkaBroker::startOrExternal);
  }

  /**
   * @return this JVM's SQS endpoint (in-process ElasticMQ, or the external endpoint)
   */
  public static SqsServer sqs() {
    return shared(SqsServer.class, SqsServer::startOrExternal);
  }

  /**
   * @return this JVM's Redis (a server without persistence, or the external one)
   */
  public static RedisServer redis() {
    return shared(RedisServer.class, RedisServer::startOrExternal);
  }

  /**
   * @return this JVM's PostgreSQL (embedded, or the external one)
   */
  public static PostgresServer postgres() {
    return shared(PostgresServer.class, PostgresServer::startOrExternal);
  }

  private static synchronized <T extends AutoCloseable> T shared(Class<T> type, Supplier<T> start) {
    AutoCloseable server = STARTED.get(type);
    if (server == null) {
      server = start.get();
      STARTED.put(type, server);
      STOP_ORDER.push(server);
    }
    return type.cast(server);
  }

  private static synchronized void stopAll() {
    while (!STOP_ORDER.isEmpty()) {
      try {
        STOP_ORDER.pop().close();
      } catch (Exception e) {
        // the JVM is exiting; a server that does not stop cleanly is killed with it
      }
    }
    STARTED.clear();
  }
}
