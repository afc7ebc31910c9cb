package dev.siglo.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.RedisCluster;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SqsServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

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
  private RedisCluster cluster;

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

  /**
   * @return the suite's Redis Cluster (three primaries, three replicas), started on first use and
   *     healed (killed nodes restarted) on every use
   */
  synchronized RedisCluster redisCluster() {
    if (cluster == null) {
      cluster = RedisCluster.start();
    } else {
      cluster.heal();
    }
    return cluster;
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

  /**
   * Stops the run's store ({@code outside}: Redis; {@code tx}: PostgreSQL) for {@code length},
   * starts it again, and records what the consumers did meanwhile: the effects written while it was
   * down (handlers that held a claim when it stopped may finish in its first second), and the
   * pauses of their intake that began during it, with the store calls they made while paused and
   * how soon they resumed. The history lives in the same PostgreSQL, so after a PostgreSQL outage
   * it is read once its pool reconnects.
   */
  void storeOutage(Run run, String mode, Duration length) throws InterruptedException {
    boolean onRedis = mode.equals("outside");
    Instant stopped = Instant.now();
    if (onRedis) {
      redis.stop();
    } else {
      postgres.stop();
    }
    Thread.sleep(length.toMillis()); // the outage's length: part of the fault, not a wait
    Instant restarted = Instant.now();
    if (onRedis) {
      redis.start();
    } else {
      postgres.startAgain();
    }
    long whileDown =
        Awaitility.await(run.id + ": the effects database answers")
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptionsInstanceOf(IllegalStateException.class)
            .until(() -> effects.between(run.id, stopped.plusSeconds(1), restarted), n -> true);
    List<Effects.Pause> pauses = awaitResume(run.id, stopped, restarted);
    double paused = 0;
    long calls = 0;
    double resumedAfter = pauses.isEmpty() ? Double.POSITIVE_INFINITY : 0;
    for (Effects.Pause p : pauses) {
      paused += Duration.between(p.pausedAt(), p.resumedAt()).toMillis() / 1000.0;
      calls += p.storeCalls();
      resumedAfter =
          Math.max(resumedAfter, Duration.between(restarted, p.resumedAt()).toMillis() / 1000.0);
    }
    int workers = run.consumers.size() * Integer.parseInt(run.args.get("concurrency"));
    run.outage = new Verdict.Outage(whileDown, paused, calls, resumedAfter, workers);
  }

  /**
   * Waits (up to a minute) until a consumer reports the pause that began during the outage and
   * ended after the store's return.
   *
   * @return the pauses that began during the outage, as far as reported by then
   */
  private List<Effects.Pause> awaitResume(String run, Instant stopped, Instant restarted) {
    Callable<List<Effects.Pause>> during =
        () ->
            effects.pauses(run).stream()
                .filter(p -> !p.pausedAt().isBefore(stopped) && p.pausedAt().isBefore(restarted))
                .toList();
    try {
      return Awaitility.await(run + ": the consumer resumes")
          .atMost(Duration.ofSeconds(60))
          .until(during, ps -> ps.stream().anyMatch(p -> !p.resumedAt().isBefore(restarted)));
    } catch (ConditionTimeoutException e) {
      try {
        return during.call(); // reported as it stands: the verdict fails on it
      } catch (Exception unreadable) {
        throw new IllegalStateException("cannot read the pauses of " + run, unreadable);
      }
    }
  }

  /**
   * @return how a scenario's fault text names the outage of its store
   */
  static String outageText(String mode, Duration length) {
    return (mode.equals("outside") ? "Redis" : "PostgreSQL")
        + " stopped for "
        + length.toSeconds()
        + " s at a third of the run";
  }

  @Override
  public void close() {
    if (cluster != null) {
      cluster.close();
    }
    db.close();
    sqs.close();
    kafka.close();
    redis.close();
    postgres.close();
  }
}
