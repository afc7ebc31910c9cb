package dev.siglo.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Cluster for tests: three primaries and three replicas, each a {@code redis-server}
 * child process ({@link RedisServer} with cluster mode on) on a free loopback port, joined with
 * {@code CLUSTER MEET}, the 16,384 slots split evenly over the primaries ({@code CLUSTER ADDSLOTS})
 * and one replica per primary ({@code CLUSTER REPLICATE}); no {@code redis-cli} needed. Ready when
 * every node reports {@code cluster_state:ok} and every replica's link to its primary is up. {@link
 * #kill(HostAndPort)} crashes a node with SIGKILL (its replica takes over after the 2 s node
 * timeout); {@link #close()} stops every node.
 */
public final class RedisCluster implements AutoCloseable {
  /** Primaries, and replicas (one per primary). */
  public static final int PRIMARIES = 3;

  private static final int SLOTS = 16_384;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final List<RedisServer> primaries;
  private final List<RedisServer> replicas;

  private RedisCluster(List<RedisServer> primaries, List<RedisServer> replicas) {
    this.primaries = primaries;
    this.replicas = replicas;
  }

  /**
   * Starts six nodes and forms the cluster.
   *
   * @return the cluster, every slot served and every replica in sync
   */
  public static RedisCluster start() {
    List<RedisServer> primaries = new ArrayList<>();
    List<RedisServer> replicas = new ArrayList<>();
    RedisCluster cluster = new RedisCluster(primaries, replicas);
    try {
      for (int i = 0; i < PRIMARIES; i++) {
        primaries.add(RedisServer.custom().cluster(true).start());
        replicas.add(RedisServer.custom().cluster(true).start());
      }
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private void form() {
    for (int i = 0; i < PRIMARIES; i++) {
      int from = i * SLOTS / PRIMARIES;
      int to = (i + 1) * SLOTS / PRIMARIES;
      try (Jedis node = connect(primaries.get(i))) {
        node.clusterAddSlots(IntStream.range(from, to).toArray());
      }
    }
    RedisServer first = primaries.get(0);
    for (RedisServer node : nodes()) {
      if (node != first) {
        try (Jedis j = connect(node)) {
          j.clusterMeet(first.host(), first.port());
        }
      }
    }
    Awaitility.await("every node knows the other five")
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> nodes().stream().allMatch(n -> knownNodes(n) == 2 * PRIMARIES));
    for (int i = 0; i < PRIMARIES; i++) {
      String primaryId;
      try (Jedis p = connect(primaries.get(i))) {
        primaryId = p.clusterMyId();
      }
      try (Jedis r = connect(replicas.get(i))) {
        r.clusterReplicate(primaryId);
      }
    }
    awaitHealthy();
  }

  private void awaitHealthy() {
    Awaitility.await("the cluster serves every slot and every replica is in sync")
        .atMost(READY_TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> nodes().stream().allMatch(RedisCluster::clusterOk) && replicasInSync());
  }

  /**
   * Starts every node killed before (a crashed primary comes back as the replica of the one
   * promoted in its place) and waits until the cluster is healthy again.
   */
  public void heal() {
    for (RedisServer node : nodes()) {
      if (!node.isRunning()) {
        node.start();
      }
    }
    awaitHealthy();
  }

  private static int knownNodes(RedisServer node) {
    try (Jedis j = connect(node)) {
      return (int) j.clusterNodes().lines().filter(l -> !l.isBlank()).count();
    }
  }

  private static boolean clusterOk(RedisServer node) {
    try (Jedis j = connect(node)) {
      return j.clusterInfo().contains("cluster_state:ok");
    }
  }

  /** Every node that is a replica now (failovers swap roles) has its link to its primary up. */
  private boolean replicasInSync() {
    int inSync = 0;
    for (RedisServer node : nodes()) {
      try (Jedis j = connect(node)) {
        String replication = j.info("replication");
        if (replication.contains("role:slave")) {
          if (!replication.contains("master_link_status:up")) {
            return false;
          }
          inSync++;
        }
      }
    }
    return inSync == PRIMARIES;
  }

  private static Jedis connect(RedisServer node) {
    return new Jedis(node.host(), node.port());
  }

  /**
   * @return every node's address, primaries first
   */
  public List<HostAndPort> addresses() {
    List<HostAndPort> out = new ArrayList<>();
    nodes().forEach(n -> out.add(new HostAndPort(n.host(), n.port())));
    return out;
  }

  /**
   * @return the addresses of the nodes started as primaries (a failover may since have moved the
   *     role)
   */
  public List<HostAndPort> primaries() {
    List<HostAndPort> out = new ArrayList<>();
    primaries.forEach(n -> out.add(new HostAndPort(n.host(), n.port())));
    return out;
  }

  /**
   * @param key a key
   * @return the node started as the primary of the key's slot
   */
  public HostAndPort primaryOf(String key) {
    int slot = redis.clients.jedis.util.JedisClusterCRC16.getSlot(key);
    return primaries().get(Math.min(PRIMARIES - 1, slot * PRIMARIES / SLOTS));
  }

  /**
   * @param key a key
   * @return the node serving the key's slot as a primary now, as the live nodes see it ({@code
   *     CLUSTER NODES}); after a failover, the promoted replica
   */
  public HostAndPort currentPrimaryOf(String key) {
    int slot = redis.clients.jedis.util.JedisClusterCRC16.getSlot(key);
    for (RedisServer node : nodes()) {
      String table;
      try (Jedis j = connect(node)) {
        table = j.clusterNodes();
      } catch (RuntimeException down) {
        continue; // a killed node: ask the next
      }
      for (String line : table.split("\n")) {
        String[] f = line.trim().split(" ");
        if (f.length < 9 || !f[2].contains("master") || f[2].contains("fail")) {
          continue;
        }
        for (int i = 8; i < f.length; i++) {
          String[] range = f[i].split("-");
          int from = Integer.parseInt(range[0]);
          int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
          if (slot >= from && slot <= to) {
            String address = f[1].substring(0, f[1].indexOf('@'));
            return HostAndPort.from(address);
          }
        }
      }
    }
    throw new IllegalStateException("no live primary serves slot " + slot);
  }

  /**
   * @return the addresses of the nodes started as replicas
   */
  public List<HostAndPort> replicas() {
    List<HostAndPort> out = new ArrayList<>();
    replicas.forEach(n -> out.add(new HostAndPort(n.host(), n.port())));
    return out;
  }

  /**
   * @param primary a node started as a primary
   * @return the node started as its replica
   */
  public HostAndPort replicaOf(HostAndPort primary) {
    int i = primaries().indexOf(primary);
    if (i < 0) {
      throw new IllegalArgumentException(primary + " was not started as a primary");
    }
    return replicas().get(i);
  }

  /**
   * Crashes a node (SIGKILL).
   *
   * @param address the node
   */
  public void kill(HostAndPort address) {
    node(address).orElseThrow(() -> new IllegalArgumentException("no node " + address)).kill();
  }

  private Optional<RedisServer> node(HostAndPort address) {
    return nodes().stream()
        .filter(n -> n.port() == address.getPort() && n.host().equals(address.getHost()))
        .findFirst();
  }

  private List<RedisServer> nodes() {
    List<RedisServer> all = new ArrayList<>(primaries);
    all.addAll(replicas);
    return Collections.unmodifiableList(all);
  }

  /** Stops every node. */
  @Override
  public void close() {
    for (RedisServer node : nodes()) {
      node.close();
    }
  }

  @Override
  public String toString() {
    return "RedisCluster" + primaries();
  }
}
