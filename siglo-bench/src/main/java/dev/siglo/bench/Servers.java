package dev.siglo.bench;

import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.RedisCluster;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SqsServer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The servers of a benchmark run, each in a process of its own as in a deployment (the testkit's
 * Kafka broker and ElasticMQ in JVMs of their own, Redis (standalone, and a Redis Cluster of three
 * primaries and three replicas) and PostgreSQL as their server processes, or the external ones its
 * environment variables name), so the benchmark JVM holds only the consumer under test and its
 * process CPU time is the consumer's. Started on first use, stopped together.
 */
final class Servers implements AutoCloseable {
  private final List<AutoCloseable> started = new ArrayList<>();
  private KafkaBroker kafka;
  private SqsServer sqs;
  private RedisServer redis;
  private PostgresServer postgres;
  private RedisCluster redisCluster;

  synchronized KafkaBroker kafka() {
    kafka = startOnce(kafka, KafkaBroker::startInOwnJvmOrExternal);
    return kafka;
  }

  synchronized SqsServer sqs() {
    sqs = startOnce(sqs, SqsServer::startInOwnJvmOrExternal);
    return sqs;
  }

  synchronized RedisServer redis() {
    redis = startOnce(redis, RedisServer::startOrExternal);
    return redis;
  }

  synchronized RedisCluster redisCluster() {
    redisCluster = startOnce(redisCluster, RedisCluster::start);
    return redisCluster;
  }

  synchronized PostgresServer postgres() {
    postgres = startOnce(postgres, PostgresServer::startOrExternal);
    return postgres;
  }

  private <S extends AutoCloseable> S startOnce(S current, Supplier<S> start) {
    if (current != null) {
      return current;
    }
    S server = start.get();
    started.add(server);
    return server;
  }

  @Override
  public synchronized void close() {
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        System.err.println("stopping " + started.get(i) + " failed: " + e);
      }
    }
    started.clear();
  }
}
