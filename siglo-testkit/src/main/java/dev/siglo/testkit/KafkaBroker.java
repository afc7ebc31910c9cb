package dev.siglo.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.awaitility.Awaitility;

/**
 * A real Apache Kafka 4.x broker for tests: one KRaft node (broker and controller) started
 * in-process on free loopback ports with a temporary log directory, stopped by {@link #close()}.
 * Internal topics use replication factor 1 and consumer groups start without delay, so a test group
 * gets its assignment at once. Share groups (KIP-932) work with the broker's defaults (a 30 s
 * acquisition lock, 5 deliveries); only the share coordinator's state topic is set to one replica.
 *
 * <p>An in-process broker ({@link #start()}) also listens with SASL/PLAIN ({@link
 * #saslBootstrapServers()}, user {@value #SASL_USER}, password {@value #SASL_PASSWORD}), for tests
 * of clients that authenticate.
 *
 * <p>With the environment variable {@value #ENV_BOOTSTRAP} set, {@link #startOrExternal()} returns
 * a handle to that cluster instead.
 */
public final class KafkaBroker implements AutoCloseable {
  /** The environment variable naming an external cluster's bootstrap servers. */
  public static final String ENV_BOOTSTRAP = "SIGLO_TEST_KAFKA_BOOTSTRAP";

  /** The user the SASL/PLAIN listener accepts. */
  public static final String SASL_USER = "siglo";

  /** That user's password. */
  public static final String SASL_PASSWORD = "siglo-secret";

  private final String bootstrap;
  private final KafkaRaftServer server;
  private final KafkaBrokerProcess process;
  private String saslBootstrap;

  private KafkaBroker(String bootstrap, KafkaRaftServer server) {
    this(bootstrap, server, null);
  }

  private KafkaBroker(String bootstrap, KafkaRaftServer server, KafkaBrokerProcess process) {
    this.bootstrap = bootstrap;
    this.server = server;
    this.process = process;
  }

  /**
   * A broker in a JVM of its own, as in a deployment (benchmarks that measure the consumer's own
   * CPU and must not share a heap or a JIT with the broker); {@link #close()} stops that JVM. With
   * {@value #ENV_BOOTSTRAP} set, the external cluster.
   *
   * @return a handle to the new broker
   */
  public static KafkaBroker startInOwnJvmOrExternal() {
    String external = System.getenv(ENV_BOOTSTRAP);
    if (external != null && !external.isBlank()) {
      return new KafkaBroker(external, null);
    }
    KafkaBrokerProcess process = KafkaBrokerProcess.start();
    return new KafkaBroker(process.bootstrapServers(), null, process);
  }

  /**
   * @return the external cluster of {@value #ENV_BOOTSTRAP}, or a new in-process broker
   */
  public static KafkaBroker startOrExternal() {
    String external = System.getenv(ENV_BOOTSTRAP);
    if (external != null && !external.isBlank()) {
      return new KafkaBroker(external, null);
    }
    return start();
  }

  /**
   * @return a new in-process broker, ready to serve
   */
  public static KafkaBroker start() {
    int brokerPort = FreePorts.loopback();
    int controllerPort = FreePorts.loopback();
    try {
      Path dir = Files.createTempDirectory("siglo-kafka");
      int saslPort = FreePorts.loopback();
      Properties props = brokerProperties(dir.resolve("logs"), brokerPort, controllerPort);
      addSaslListener(props, brokerPort, controllerPort, saslPort);
      format(props, dir);
      KafkaRaftServer server =
          new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      server.startup();
      KafkaBroker broker = new KafkaBroker("127.0.0.1:" + brokerPort, server);
      broker.saslBootstrap = "127.0.0.1:" + saslPort;
      broker.awaitReady();
      return broker;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the test Kafka broker", e);
    }
  }

  /**
   * The properties of a single-node KRaft broker on loopback, also used by separate-JVM brokers.
   *
   * @param logDir the log directory
   * @param brokerPort the client port
   * @param controllerPort the controller port
   * @return the properties
   */
  public static Properties brokerProperties(Path logDir, int brokerPort, int controllerPort) {
    Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", "1");
    p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.setProperty(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("log.dirs", logDir.toString());
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "3");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    // Kafka's default session: with 2 s, a broker sharing a loaded 2-core machine missed its own
    // controller's heartbeats, was fenced mid-test, and producers got NOT_LEADER_OR_FOLLOWER
    p.setProperty("broker.session.timeout.ms", "9000");
    p.setProperty("broker.heartbeat.interval.ms", "500");
    p.setProperty("num.partitions", "1");
    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("log.flush.interval.messages", "1");
    // share groups (KIP-932): the feature is on by default in a 4.4 cluster; its state topic
    // needs a replication factor a single node can give
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    return p;
  }

  /** A SASL_PLAINTEXT listener with the PLAIN mechanism and one user, next to PLAINTEXT. */
  private static void addSaslListener(
      Properties p, int brokerPort, int controllerPort, int saslPort) {
    p.setProperty(
        "listeners",
        "PLAINTEXT://127.0.0.1:"
            + brokerPort
            + ",SASL://127.0.0.1:"
            + saslPort
            + ",CONTROLLER://127.0.0.1:"
            + controllerPort);
    p.setProperty(
        "advertised.listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",SASL://127.0.0.1:" + saslPort);
    p.setProperty(
        "listener.security.protocol.map",
        "PLAINTEXT:PLAINTEXT,SASL:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("sasl.enabled.mechanisms", "PLAIN");
    p.setProperty(
        "listener.name.sasl.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
            + SASL_USER
            + "=\""
            + SASL_PASSWORD
            + "\";");
  }

  /**
   * @return the SASL/PLAIN listener's bootstrap servers (an in-process broker), else null
   */
  public String saslBootstrapServers() {
    return saslBootstrap;
  }

  /**
   * Writes {@code server.properties} into {@code dir} and formats the log directory it names.
   *
   * @param props the broker properties
   * @param dir where to write the properties file
   * @return the properties file
   * @throws IOException when the file cannot be written
   */
  static Path format(Properties props, Path dir) throws IOException {
    Path file = dir.resolve("server.properties");
    try (OutputStream out = Files.newOutputStream(file)) {
      props.store(out, "siglo test broker");
    }
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    int rc =
        StorageTool.execute(
            new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", file.toString()},
            new PrintStream(log, true, StandardCharsets.UTF_8));
    if (rc != 0) {
      throw new IllegalStateException(
          "formatting the Kafka log dir failed: " + log.toString(StandardCharsets.UTF_8));
    }
    return file;
  }

  private void awaitReady() {
    try (Admin admin = admin()) {
      Awaitility.await("Kafka broker at " + bootstrap)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .ignoreExceptions()
          .until(() -> !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty());
    }
  }

  /**
   * @return the bootstrap servers
   */
  public String bootstrapServers() {
    return bootstrap;
  }

  /**
   * @return whether this handle points at an external cluster it does not own
   */
  public boolean isExternal() {
    return server == null && process == null;
  }

  /**
   * @return an admin client for this broker; close it
   */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  /**
   * Creates topics and waits until the broker serves every partition as its leader (a produce
   * request sent before that gets NOT_LEADER_OR_FOLLOWER, and the idempotent producer's retry of it
   * can end in OUT_OF_ORDER_SEQUENCE_NUMBER until the record expires).
   *
   * @param partitions partitions of each topic
   * @param names topic names
   */
  public void createTopics(int partitions, String... names) {
    try (Admin admin = admin()) {
      admin
          .createTopics(
              java.util.Arrays.stream(names)
                  .map(n -> new NewTopic(n, partitions, (short) 1))
                  .toList())
          .all()
          .get(60, TimeUnit.SECONDS);
      Awaitility.await("topics " + String.join(",", names))
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> everyPartitionLed(admin, names));
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topics " + String.join(",", names), e);
    }
  }

  private static boolean everyPartitionLed(Admin admin, String... names) throws Exception {
    return admin
        .describeTopics(Set.of(names))
        .allTopicNames()
        .get(5, TimeUnit.SECONDS)
        .values()
        .stream()
        .flatMap(t -> t.partitions().stream())
        .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
  }

  /** Stops an in-process broker or the broker's own JVM; an external cluster is left alone. */
  @Override
  public void close() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
    }
    if (process != null) {
      process.close();
    }
  }

  @Override
  public String toString() {
    return "KafkaBroker[" + bootstrap + (isExternal() ? ", external" : "") + "]";
  }
}
