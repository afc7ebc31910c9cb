package dev.siglo.store.redis;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One Lua script, run by SHA-1 ({@code EVALSHA}) and loaded with {@code EVAL} when the server does
 * not know it (first use, or after a restart emptied its script cache). Keys and values are always
 * script arguments, never text of the script. Thread-safe.
 */
final class RedisScript {
  private final String name;
  private final byte[] text;
  private final byte[] sha1;
  private final byte[] operation;

  private RedisScript(String name, byte[] text, byte[] sha1) {
    this.name = name;
    this.text = text;
    this.sha1 = sha1;
    this.operation = name.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] sha1(byte[] text) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-1").digest(text))
          .getBytes(StandardCharsets.US_ASCII);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 unavailable", e);
    }
  }

  /**
   * The same script for one of its operations: its name is what errors call it and, as bytes, the
   * argument that selects the operation ({@link #operation()}).
   */
  RedisScript named(String operation) {
    return new RedisScript(operation, text, sha1);
  }

  /**
   * @return the name as the script argument that selects the operation
   */
  byte[] operation() {
    return operation;
  }

  static RedisScript load(String name) {
    try (InputStream in = RedisScript.class.getResourceAsStream(name + ".lua")) {
      if (in == null) {
        throw new IllegalStateException("script resource " + name + ".lua missing");
      }
      byte[] text = in.readAllBytes();
      return new RedisScript(name, text, sha1(text));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + name, e);
    }
  }

  Object run(UnifiedJedis redis, List<byte[]> keys, List<byte[]> args) {
    try {
      return redis.evalsha(sha1, keys, args);
    } catch (JedisNoScriptException e) {
      return redis.eval(text, keys, args);
    }
  }

  /**
   * Runs the script and waits until {@code replicas} replicas acknowledged what it wrote: the
   * script and a {@code WAIT} in one pipeline, which holds one connection ({@code WAIT} counts the
   * writes of the connection it is sent on). A server without the script gets it in a second
   * pipeline.
   *
   * @param pipelines opens a pipeline on the connection to the keys' primary
   * @return the script's answer
   * @throws IdempotencyStoreUnavailableException when fewer replicas acknowledged within {@code
   *     timeoutMillis}
   */
  Object runAndWait(
      Supplier<Pipeline> pipelines,
      List<byte[]> keys,
      List<byte[]> args,
      int replicas,
      long timeoutMillis) {
    Response<Object> answer;
    Response<Long> acknowledged;
    try (Pipeline pipeline = pipelines.get()) {
      answer = pipeline.evalsha(sha1, keys, args);
      acknowledged = pipeline.waitReplicas(replicas, timeoutMillis);
      pipeline.sync();
    }
    Object result;
    try {
      result = answer.get();
    } catch (JedisDataException e) {
      if (!String.valueOf(e.getMessage()).startsWith("NOSCRIPT")) {
        throw e;
      }
      try (Pipeline pipeline = pipelines.get()) {
        answer = pipeline.eval(text, keys, args);
        acknowledged = pipeline.waitReplicas(replicas, timeoutMillis);
        pipeline.sync();
      }
      result = answer.get();
    }
    requireAcknowledged(acknowledged.get(), replicas, timeoutMillis);
    return result;
  }

  private void requireAcknowledged(long acknowledged, int replicas, long timeoutMillis) {
    if (acknowledged < replicas) {
      throw new IdempotencyStoreUnavailableException(
          String.format(
              "only %d of the %d replicas acknowledged the %s within %d ms (replicaAcks)",
              acknowledged, replicas, name, timeoutMillis));
    }
  }

  /**
   * Runs the script once per group of keys (each group's keys share a hash slot); on a Redis
   * Cluster the calls go out in one pipeline, split by node and sent to the nodes at once by {@code
   * nodeSenders}, so a batch over many slots costs one round trip per node. A call the pipeline
   * cannot place (the slot moved: {@code MOVED}, {@code ASK}) or that meets a node without the
   * script ({@code NOSCRIPT}) is run again on its own, which follows the redirection and loads the
   * script.
   *
   * @return one answer per group, in order
   */
  List<Object> runGroups(
      UnifiedJedis redis,
      List<List<byte[]>> keys,
      List<List<byte[]>> args,
      ExecutorService nodeSenders) {
    List<Object> out = new ArrayList<>(keys.size());
    if (!(redis instanceof RedisClusterClient cluster) || keys.size() == 1) {
      for (int i = 0; i < keys.size(); i++) {
        out.add(run(redis, keys.get(i), args.get(i)));
      }
      return out;
    }
    List<Response<Object>> answers = new ArrayList<>(keys.size());
    // the store's own senders: a pipeline without them starts a thread pool on every sync
    try (ClusterPipeline pipeline = cluster.pipelined(nodeSenders)) {
      for (int i = 0; i < keys.size(); i++) {
        answers.add(pipeline.evalsha(sha1, keys.get(i), args.get(i)));
      }
      pipeline.sync();
    } catch (JedisConnectionException e) {
      throw nodeLost(cluster, e);
    }
    for (int i = 0; i < keys.size(); i++) {
      try {
        out.add(answers.get(i).get());
      } catch (IllegalStateException e) {
        // the pipeline leaves the answers of a node it lost during sync unset
        throw nodeLost(cluster, new JedisConnectionException("a cluster node was lost", e));
      } catch (JedisDataException e) {
        String msg = String.valueOf(e.getMessage());
        if (!msg.startsWith("NOSCRIPT") && !msg.startsWith("MOVED") && !msg.startsWith("ASK")) {
          throw e;
        }
        out.add(run(redis, keys.get(i), args.get(i)));
      }
    }
    return out;
  }

  /**
   * A node of the cluster could not be reached: its slot map is read again (to follow a failover),
   * and the failure goes on as a connection failure.
   */
  private static JedisConnectionException nodeLost(
      RedisClusterClient cluster, JedisConnectionException e) {
    try {
      cluster.refreshClusterTopology();
    } catch (JedisException refresh) {
      e.addSuppressed(refresh);
    }
    return e;
  }

  @Override
  public String toString() {
    return "script " + name;
  }
}
