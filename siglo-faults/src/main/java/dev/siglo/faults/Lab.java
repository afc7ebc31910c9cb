package dev.siglo.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SqsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The servers of the suite, all on loopback and owned by it (so outages can stop and start them):
 * PostgreSQL (effects table, PostgreSQL store), Redis, an in-process Kafka broker, ElasticMQ. The
 * broker-kill scenario starts its own separate-JVM broker.
 */
final class Lab implements AutoCloseable {
  final PostgresServer postgres;
  final RedisServer redis;
  final KafkaBroker kafka;
  final SqsServer sqs;
  final HikariDataSource db;
  final Effects effects;
  final Path logDir;

  Lab() throws IOException {
    logDir = Files.createTempDirectory("siglo-faults");
    postgres = PostgresServer.start();
    redis = RedisServer.custom().persistent(true).start(); // AOF: records survive a restart
    kafka = KafkaBroker.start();
    sqs = SqsServer.startOrExternal();
    HikariConfig hikari = new HikariConfig();
    hikari.setJdbcUrl(postgres.jdbcUrl());
    hikari.setMaximumPoolSize(2);
    hikari.setConnectionTimeout(2_000);
    hikari.setInitializationFailTimeout(-1);
    db = new HikariDataSource(hikari);
    effects = new Effects(db);
  }

  String redisAddress() {
    return redis.host() + ":" + redis.port();
  }

  /**
   * The consumer arguments every scenario shares: its stores, effect mode and scenario id, 8
   * workers, a 4 s claim lease, and handlers slow enough (2 × 25 ms) that faults land mid-run.
   */
  Map<String, String> consumerArgs(String broker, String mode, String id) {
    Map<String, String> args = new HashMap<>();
    args.put("broker", broker);
    args.put("mode", mode);
    args.put("postgres", postgres.jdbcUrl());
    args.put("redis", redisAddress());
    args.put("scenario", id);
    args.put("concurrency", "8");
    args.put("leaseMillis", "4000");
    args.put("handlerMillis", "25");
    return args;
  }

  @Override
  public void close() {
    db.close();
    sqs.close();
    kafka.close();
    redis.close();
    postgres.close();
  }
}
