package dev.siglo.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Sentinel deployment for tests: one primary and one replica ({@link RedisServer}
 * processes) watched by three sentinels ({@code redis-server --sentinel} child processes on free
 * loopback ports, quorum 2, the primary taken as down after 2 s). Ready when every sentinel knows
 * the primary, the replica and the other sentinels. {@link #killPrimary()} crashes the primary
 * (SIGKILL), after which the sentinels promote the replica; {@link #close()} stops every process.
 */
public final class RedisSentinel implements AutoCloseable {
  /** The name the sentinels monitor the primary under. */
  public static final String MASTER_NAME = "siglo-primary";

  private static final int SENTINELS = 3;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final RedisServer primary;
  private final RedisServer replica;
  private final List<Process> sentinels = new ArrayList<>();
  private final List<HostAndPort> sentinelAddresses = new ArrayList<>();

  private RedisSentinel(RedisServer primary, RedisServer replica) {
    this.primary = primary;
    this.replica = replica;
  }

  /**
   * @return the started deployment, the replica in sync and every sentinel informed
   */
  public static RedisSentinel start() {
    RedisServer primary = RedisServer.custom().start();
    RedisServer replica = null;
    RedisSentinel deployment = null;
    try {
      replica = RedisServer.custom().replicaOf(primary).start();
      deployment = new RedisSentinel(primary, replica);
      deployment.startSentinels();
      deployment.awaitReady();
      return deployment;
    } catch (RuntimeException e) {
      if (deployment != null) {
        deployment.close();
      } else {
        if (replica != null) {
          replica.close();
        }
        primary.close();
      }
      throw e;
    }
  }

  private void startSentinels() {
    Path binary =
        primary.binary().orElseThrow(() -> new IllegalStateException("no redis-server binary"));
    for (int i = 0; i < SENTINELS; i++) {
      int port = FreePorts.loopback();
      try {
        Path dir = Files.createTempDirectory("siglo-sentinel");
        dir.toFile().deleteOnExit();
        Path conf = dir.resolve("sentinel.conf");
        Files.writeString(
            conf,
            String.join(
                "\n",
                "port " + port,
                "bind 127.0.0.1",
                "dir " + dir,
                "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + primary.port() + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 2000",
                "sentinel failover-timeout " + MASTER_NAME + " 10000",
                ""));
        sentinels.add(
            new ProcessBuilder(binary.toString(), conf.toString(), "--sentinel")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("sentinel.log").toFile())
                .start());
        sentinelAddresses.add(new HostAndPort("127.0.0.1", port));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start a sentinel", e);
      }
    }
  }

  private void awaitReady() {
    Awaitility.await("the replica in sync and every sentinel informed")
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              try (Jedis r = new Jedis(replica.host(), replica.port())) {
                if (!r.info("replication").contains("master_link_status:up")) {
                  return false;
                }
              }
              for (HostAndPort s : sentinelAddresses) {
                try (Jedis j = new Jedis(s.getHost(), s.getPort())) {
                  String info = j.info("sentinel");
                  // the primary, its replica and the two other sentinels all known
                  if (!info.contains(
                      "status=ok,address=127.0.0.1:"
                          + primary.port()
                          + ",slaves=1,sentinels="
                          + SENTINELS)) {
                    return false;
                  }
                }
              }
              return true;
            });
  }

  /**
   * @return the sentinels' addresses
   */
  public List<HostAndPort> sentinels() {
    return List.copyOf(sentinelAddresses);
  }

  /**
   * @return the address of the server started as the primary
   */
  public HostAndPort primary() {
    return new HostAndPort(primary.host(), primary.port());
  }

  /**
   * @return the address of the server started as the replica
   */
  public HostAndPort replica() {
    return new HostAndPort(replica.host(), replica.port());
  }

  /**
   * @return the primary's address as the sentinels report it now
   */
  public HostAndPort currentPrimary() {
    HostAndPort s = sentinelAddresses.get(0);
    try (Jedis j = new Jedis(s.getHost(), s.getPort())) {
      List<String> address = j.sentinelGetMasterAddrByName(MASTER_NAME);
      return new HostAndPort(address.get(0), Integer.parseInt(address.get(1)));
    }
  }

  /**
   * Crashes the server started as the primary (SIGKILL); the sentinels then promote the replica.
   */
  public void killPrimary() {
    primary.kill();
  }

  /** Stops the sentinels and both servers. */
  @Override
  public void close() {
    for (Process p : sentinels) {
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    replica.close();
    primary.close();
  }

  @Override
  public String toString() {
    return "RedisSentinel[" + MASTER_NAME + ", sentinels " + sentinelAddresses + "]";
  }
}
