package dev.siglo.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.awaitility.Awaitility;

/**
 * A Kafka 4.x KRaft broker in a separate JVM (the test's class path), for tests that must kill it
 * with SIGKILL and start it again: {@link #kill()} is {@code destroyForcibly}, {@link #start()}
 * restarts it on the same ports and log directory, which keeps committed offsets and acknowledged
 * records. The broker halts itself when the test JVM goes away.
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  private final Path dir;
  private final Path properties;
  private final int brokerPort;
  private Process process;

  private KafkaBrokerProcess(Path dir, Path properties, int brokerPort) {
    this.dir = dir;
    this.properties = properties;
    this.brokerPort = brokerPort;
  }

  /**
   * @return a formatted, started broker
   */
  public static KafkaBrokerProcess start() {
    try {
      Path dir = Files.createTempDirectory("siglo-kafka-jvm");
      int brokerPort = FreePorts.loopback();
      Properties props =
          KafkaBroker.brokerProperties(dir.resolve("logs"), brokerPort, FreePorts.loopback());
      Path file = KafkaBroker.format(props, dir);
      return new KafkaBrokerProcess(dir, file, brokerPort).startAgain();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the separate-JVM broker", e);
    }
  }

  /**
   * @return the bootstrap servers
   */
  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /**
   * Starts the broker JVM (again) and waits until it serves.
   *
   * @return this broker
   */
  public synchronized KafkaBrokerProcess startAgain() {
    if (process != null && process.isAlive()) {
      return this;
    }
    process =
        Jvms.start(
            "512m",
            ProcessBuilder.Redirect.appendTo(dir.resolve("broker.log").toFile()),
            KafkaBrokerMain.class,
            properties.toString());
    Process started = process;
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      Awaitility.await("separate-JVM Kafka broker on " + bootstrapServers())
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(
              () ->
                  !started.isAlive()
                      || !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty());
    }
    if (!started.isAlive()) {
      throw new IllegalStateException("the broker JVM exited; see " + dir.resolve("broker.log"));
    }
    return this;
  }

  /** Kills the broker JVM with SIGKILL and waits for it to be gone. */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** Kills the broker if it runs. */
  @Override
  public void close() {
    kill();
  }

  @Override
  public String toString() {
    return "KafkaBrokerProcess[" + bootstrapServers() + "]";
  }
}
