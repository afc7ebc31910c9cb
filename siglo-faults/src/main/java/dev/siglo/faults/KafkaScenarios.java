package dev.siglo.faults;

import dev.siglo.testkit.KafkaBrokerProcess;
import dev.siglo.testkit.RedisCluster;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import redis.clients.jedis.HostAndPort;

/**
 * The Kafka scenarios: each sends its manifest, starts consumer processes, injects its faults
 * (timed by the progress of the effects), waits until the group committed everything, stops the
 * consumers and checks the history.
 */
final class KafkaScenarios {
  private static final AtomicInteger RUNS = new AtomicInteger();

  private final Lab lab;
  private final FaultSize size;

  KafkaScenarios(Lab lab, FaultSize size) {
    this.lab = lab;
    this.size = size;
  }

  /** A fault schedule run against a running scenario. */
  @FunctionalInterface
  interface Faults {
    void inject(Run run) throws Exception;
  }

  private Verdict run(
      String scenario,
      String mode,
      String faults,
      String bootstrap,
      Manifest manifest,
      Map<String, String> overrides,
      Faults schedule)
      throws Exception {
    long start = System.nanoTime();
    int number = RUNS.incrementAndGet(); // scenarios run in parallel lanes
    String id = scenario + "/" + mode + "/" + number;
    String topic = "faults-" + mode + "-" + number;
    KafkaSide.createTopics(bootstrap, topic);
    KafkaSide.send(bootstrap, topic, manifest);
    Map<String, String> args = lab.consumerArgs("kafka", mode, id);
    args.put("bootstrap", bootstrap);
    args.put("topic", topic);
    args.put("group", "group-" + topic);
    args.putAll(overrides);
    try (Run run = new Run(id, args, lab.effects, lab.logDir)) {
      run.startConsumer();
      schedule.inject(run);
      boolean share = "kafka-share".equals(args.get("broker"));
      Awaitility.await(
              id + (share ? ": share group acknowledged" : ": group committed") + " to the end")
          .atMost(Duration.ofMinutes(size.minutesPerScenario()))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  share
                      ? KafkaSide.acknowledgedToEnd(bootstrap, args.get("group"), topic)
                      : KafkaSide.committedToEnd(bootstrap, args.get("group"), topic));
      run.stopAll();
      return Checker.check(
          run,
          mode,
          faults,
          manifest,
          KafkaSide.deadLetters(bootstrap, topic),
          true,
          (System.nanoTime() - start) / 1e9);
    }
  }

  private Manifest duplicates(String prefix) {
    return Manifest.duplicates(prefix, size.keys(), size.copies(), 0, prefix.hashCode());
  }

  /** The length of an outage or a pause: part of the fault injected, not a wait for anything. */
  private static void outage(Duration length) throws InterruptedException {
    Thread.sleep(length.toMillis());
  }

  /** Scenario 1: the consumer SIGKILLed {@code kills} times mid-run, restarted each time. */
  Verdict consumerKills(String mode) throws Exception {
    Manifest m = duplicates("kills");
    int kills = size.kills();
    return run(
        "consumer SIGKILL",
        mode,
        kills + " × SIGKILL of the consumer, restarted at once",
        lab.kafka.bootstrapServers(),
        m,
        Map.of(),
        run -> {
          for (int k = 1; k <= kills; k++) {
            run.awaitEffects((long) m.effectKeys.size() * k / (kills + 1), Duration.ofMinutes(3));
            run.consumers.get(run.consumers.size() - 1).kill();
            run.startConsumer();
          }
        });
  }

  /** Scenario 2: the (separate-JVM) broker SIGKILLed mid-run and started again. */
  Verdict brokerKill(String mode) throws Exception {
    try (KafkaBrokerProcess broker = KafkaBrokerProcess.start()) {
      Manifest m = duplicates("broker");
      return run(
          "broker SIGKILL",
          mode,
          "SIGKILL of the Kafka broker at a third of the run, restarted after 3 s",
          broker.bootstrapServers(),
          m,
          Map.of(),
          run -> {
            run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
            broker.kill();
            outage(Duration.ofSeconds(3));
            broker.startAgain();
          });
    }
  }

  /**
   * Scenario 3: the store stopped for 5 s mid-run (Redis in mode outside, PostgreSQL in mode tx).
   * Fail closed: apart from handlers already running when it stopped, no effect is written while it
   * is down.
   */
  Verdict storeOutage(String mode) throws Exception {
    Manifest m = duplicates("outage");
    return run(
        "store outage",
        mode,
        Lab.outageText(mode, size.outage()),
        lab.kafka.bootstrapServers(),
        m,
        Map.of(),
        run -> {
          run.noCrashes = true;
          run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
          lab.storeOutage(run, mode, size.outage());
        });
  }

  /**
   * Scenario 3b: on a 3+3 Redis Cluster store, the primary of a third of the slots SIGKILLed at a
   * third of the run; its replica is promoted after the cluster's 2 s node timeout, and the killed
   * node restarts as its replica after the outage length. With {@code replicaAcks} 1 every
   * acknowledged claim and completion is on the replica, so no key may run twice (and the promoted
   * primary's slots wait, failing transiently, until a replica is back); without it, a claim the
   * primary acknowledged but had not yet copied is lost, and the keys that ran twice are counted,
   * not failed. Nothing may be lost either way.
   */
  Verdict redisFailover(boolean replicaAcks) throws Exception {
    Manifest m = duplicates(replicaAcks ? "failover-acks" : "failover");
    RedisCluster cluster = lab.redisCluster();
    HostAndPort seed = cluster.addresses().get(0);
    return run(
        replicaAcks ? "Redis failover, replicaAcks 1" : "Redis failover, no replicaAcks",
        "outside",
        "SIGKILL of a Redis Cluster primary (a third of the slots) at a third of the run",
        lab.kafka.bootstrapServers(),
        m,
        Map.of(
            "redisCluster",
            seed.getHost() + ":" + seed.getPort(),
            "replicaAcks",
            replicaAcks ? "1" : "0"),
        run -> {
          run.noCrashes = replicaAcks; // with acknowledgements a duplicate fails the scenario
          run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
          HostAndPort victim = cluster.currentPrimaryOf("faults");
          cluster.kill(victim);
          // it restarts (as a replica of its promoted replica) once the outage has lasted: until
          // then the promoted primary has no replica to acknowledge anything
          outage(size.outage());
          cluster.heal();
          run.notes.append(" (").append(victim).append(" killed, back after ");
          run.notes.append(size.outage().toSeconds()).append(" s as a replica)");
        });
  }

  /** Scenario 4: consumers of one group joining and leaving every few seconds during the run. */
  Verdict rebalanceStorm(String mode) throws Exception {
    Manifest m = duplicates("storm");
    return run(
        "rebalance storm",
        mode,
        "3 consumers; every 2 s one leaves (SIGTERM or SIGKILL, alternately) and one joins",
        lab.kafka.bootstrapServers(),
        m,
        Map.of("handlerMillis", "100", "concurrency", "4"),
        run -> {
          run.startConsumer();
          run.startConsumer();
          int changes = 0;
          while (changes < 8 && run.effectsSoFar() < m.effectKeys.size()) {
            outage(Duration.ofSeconds(2)); // the storm's rhythm
            ConsumerProcess leaving = run.consumers.remove(0);
            if (changes % 2 == 0) {
              leaving.stop();
            } else {
              leaving.kill();
            }
            run.startConsumer();
            changes++;
          }
          run.notes.append(" (").append(changes).append(" changes during the run)");
        });
  }

  /**
   * Scenario 5: a consumer frozen (SIGSTOP) while it holds claims (in tx mode, inside open
   * PostgreSQL transactions holding the records' row locks), past its 3 s lease and its session; a
   * second consumer takes the partitions and the claims over and finishes every key, the frozen
   * one's too (its claims lapse; in tx mode PostgreSQL ends its idle transactions after the lease),
   * before the first resumes (SIGCONT). Its late completions and commits must be rejected.
   */
  Verdict leaseExpiry(String mode) throws Exception {
    Manifest m = duplicates("lease");
    return run(
        "lease expiry (SIGSTOP)",
        mode,
        "consumer frozen with claims held past lease and session, taken over, then resumed",
        lab.kafka.bootstrapServers(),
        m,
        Map.of("leaseMillis", "3000", "handlerMillis", "40", "pauseInTx", "true"),
        run -> {
          run.awaitEffects(m.effectKeys.size() / 4, Duration.ofMinutes(3));
          ConsumerProcess frozen = run.consumers.get(0);
          if (mode.equals("tx")) {
            freezeInsideTransactions(run, frozen);
          } else {
            frozen.freeze();
          }
          run.startConsumer();
          // the frozen process holds back nothing: it is thawed only once every key has its effect
          run.awaitEveryEffectKey(m.effectKeys.size(), Duration.ofMinutes(3));
          frozen.thaw();
        });
  }

  /**
   * Freezes {@code consumer} while at least one of its transactions is open (its handlers spend
   * most of their time inside one), so the scenario always covers a frozen holder of row locks:
   * when a freeze finds none open, the consumer is thawed and frozen again.
   */
  private void freezeInsideTransactions(Run run, ConsumerProcess consumer) {
    String name = FaultConsumerMain.applicationName(consumer.pid());
    for (int attempt = 1; ; attempt++) {
      consumer.freeze();
      // a statement running when the signal landed ends within moments and leaves its
      // transaction idle
      try {
        Awaitility.await("an open transaction of the frozen consumer")
            .atMost(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> run.effects.openTransactions(name) > 0);
        run.notes
            .append(" (frozen with ")
            .append(run.effects.openTransactions(name))
            .append(" transaction(s) open)");
        return;
      } catch (ConditionTimeoutException none) {
        if (attempt == 20) {
          throw new IllegalStateException(
              "the consumer was never frozen with a transaction open", none);
        }
        consumer.thaw();
      }
    }
  }

  /**
   * Scenario 5b: every 50th key's handler runs 10 s, more than 3 × its 3 s lease, while the copies
   * of its key arrive on other partitions and a second consumer joins (a rebalance moves
   * partitions): the long handler is never taken over while its process lives.
   */
  Verdict longHandlers(String mode) throws Exception {
    Manifest m = Manifest.duplicates("long", size.keys(), size.copies(), 50, 9);
    return run(
        "handlers longer than 3 × lease",
        mode,
        m.slow + " handlers of 10 s, lease 3 s, copies on other partitions, a consumer joins",
        lab.kafka.bootstrapServers(),
        m,
        Map.of("leaseMillis", "3000", "slowMillis", "10000"),
        run -> {
          run.noCrashes = true;
          run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
          run.startConsumer();
        });
  }

  /**
   * Scenario 5c: records (three at soak size, one at CI size) whose handler halts the consumer's
   * JVM, the consumer restarted at once each time it dies. Each crasher must end as a {@code
   * CRASH_LOOP} dead letter after three takeovers, every other key must have its one effect, and
   * the group must commit to the end. The lease is 10 s here: it is only how long a dead holder
   * blocks its key (renewal keeps live holders whatever the lease), so the default 2 min would only
   * make each crash wait longer.
   */
  Verdict crashLoop(String mode) throws Exception {
    Manifest m = Manifest.crashers("crash", size.keys(), size.copies(), size.crashers(), 11);
    int[] restarts = {0};
    String bootstrap = lab.kafka.bootstrapServers();
    return run(
        "crash loop",
        mode,
        m.expectedDeadLetters.get("CRASH_LOOP")
            + " record(s) halt the consumer's JVM; it is restarted at once each time; lease 10 s",
        bootstrap,
        m,
        Map.of("leaseMillis", "10000"),
        run -> restartUntilCommitted(run, bootstrap, restarts));
  }

  /**
   * Scenario 5d: the crash loop with a {@code BatchMessageHandler} at the default batch size and
   * linger: each halting record takes its whole batch down with the JVM, so every message of that
   * batch comes back with its claim taken over. Each such message must then run alone (so the crash
   * is blamed on the halting record only): the crashers end as {@code CRASH_LOOP} dead letters,
   * every other key has its one effect, and the group commits to the end. Lease 10 s, as in 5c.
   */
  Verdict batchCrashLoop(String mode) throws Exception {
    Manifest m = Manifest.crashers("batch-crash", size.keys(), size.copies(), size.crashers(), 17);
    int[] restarts = {0};
    String bootstrap = lab.kafka.bootstrapServers();
    return run(
        "batch handler crash loop",
        mode,
        "batch handler (batches of up to 100); "
            + m.expectedDeadLetters.get("CRASH_LOOP")
            + " record(s) halt the consumer's JVM with their batch; it is restarted at once each"
            + " time; lease 10 s",
        bootstrap,
        m,
        Map.of("leaseMillis", "10000", "handler", "batch"),
        run -> restartUntilCommitted(run, bootstrap, restarts));
  }

  /** Restarts the run's consumer whenever it dies, until the group committed to the end. */
  private void restartUntilCommitted(Run run, String bootstrap, int[] restarts) throws Exception {
    while (!KafkaSide.committedToEnd(bootstrap, run.args.get("group"), run.args.get("topic"))) {
      ConsumerProcess current = run.consumers.get(run.consumers.size() - 1);
      Awaitility.await(run.id + ": the consumer dies or the group commits to the end")
          .atMost(Duration.ofMinutes(size.minutesPerScenario()))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  !current.isAlive()
                      || KafkaSide.committedToEnd(
                          bootstrap, run.args.get("group"), run.args.get("topic")));
      if (!current.isAlive()) {
        restarts[0]++;
        run.startConsumer();
      }
    }
    run.notes.append(" (").append(restarts[0]).append(" restarts)");
  }

  /** Scenario 6: 1% each of undecodable, missing-key, hostile-key and reused-key messages. */
  Verdict poisonMix(String mode) throws Exception {
    Manifest m = Manifest.poisonMix("poison", size.keys(), size.copies(), 6);
    return run(
        "poison mix",
        mode,
        "1% each: undecodable payload, no key, hostile key, key reused with another payload",
        lab.kafka.bootstrapServers(),
        m,
        Map.of(),
        run -> {});
  }

  /**
   * Scenario 7: a share group (KIP-932) of three consumers on the same partitions, the last
   * SIGKILLed {@code kills} times and restarted each time, some handlers longer than the 30 s
   * acquisition lock (renewed while they run), 1% each of the poison mix. At the broker's defaults
   * (30 s lock, 5 deliveries) and Siglo's: nothing lost (a record archived by the broker past its
   * delivery limit would be), no tx effect twice, the poison on the dead-letter topic and no
   * healthy record there (none exhausted its deliveries).
   */
  Verdict shareGroupKills(String mode) throws Exception {
    int slowEvery = Math.max(100, size.keys() / 30);
    Manifest m = Manifest.poisonMix("share", size.keys(), size.copies(), slowEvery, 13);
    int kills = size.kills();
    return run(
        "share group SIGKILL",
        mode,
        "3 share consumers, "
            + kills
            + " × SIGKILL of one, restarted at once; "
            + m.slow
            + " handlers of 35 s (lock 30 s); 1% each poison kind",
        lab.kafka.bootstrapServers(),
        m,
        Map.of("broker", "kafka-share", "slowMillis", "35000"),
        run -> {
          run.startConsumer();
          run.startConsumer();
          for (int k = 1; k <= kills; k++) {
            run.awaitEffects((long) m.effectKeys.size() * k / (kills + 1), Duration.ofMinutes(5));
            run.consumers.get(run.consumers.size() - 1).kill();
            run.startConsumer();
          }
        });
  }
}
