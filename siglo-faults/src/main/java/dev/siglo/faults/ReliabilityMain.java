package dev.siglo.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The fault-injection suite: every scenario in the effect modes it applies to, a table of what the
 * checker found, and {@code docs/RELIABILITY.md} when {@code --out} names it. Arguments: {@code
 * --size=ci|soak} (default ci), {@code --only=NAME-PART}, {@code --lanes=N} (scenarios at once;
 * default 3 at ci size, 1 at soak size), {@code --out=FILE}. Exit code 0 when every scenario kept
 * its mode's promise, 1 otherwise (the report is still written, with the failures marked).
 */
public final class ReliabilityMain {
  /** The command that runs the suite at CI size and writes docs/RELIABILITY.md. */
  static final String COMMAND = "mvn -B -q -pl siglo-faults -am verify -DskipTests -Preliability";

  private ReliabilityMain() {}

  /** One scenario in one mode, run on a lane's servers. */
  @FunctionalInterface
  interface Scenario {
    Verdict run(KafkaScenarios kafka, SqsScenarios sqs) throws Exception;
  }

  /**
   * A scenario in a mode, named {@code scenario/mode} for {@code --only}.
   *
   * @param name the name
   * @param scenario how to run it
   */
  record Named(String name, Scenario scenario) {}

  /**
   * @param args see the class description
   */
  public static void main(String[] args) {
    String size = "ci";
    Path out = null;
    String only = "";
    Integer lanes = null;
    for (String arg : args) {
      if (arg.startsWith("--size=")) {
        size = arg.substring("--size=".length());
      } else if (arg.startsWith("--lanes=")) {
        lanes = Integer.valueOf(arg.substring("--lanes=".length()));
      } else if (arg.startsWith("--only=")) {
        only = arg.substring("--only=".length());
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring("--out=".length()));
      } else {
        System.err.println(
            "unknown argument "
                + arg
                + " (use --size=ci|soak, --only=NAME-PART, --lanes=N, --out=FILE)");
        System.exit(2);
      }
    }
    int code;
    try {
      FaultSize sized = FaultSize.named(size);
      List<Verdict> verdicts = run(lanes == null ? sized : sized.withLanes(lanes), only);
      if (out != null) {
        write(out, verdicts, size);
        System.out.println("written to " + out);
      }
      code = verdicts.stream().allMatch(Verdict::passed) ? 0 : 1;
    } catch (Exception e) {
      e.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  /**
   * @return every scenario in every mode it applies to, in the report's order
   */
  static List<Named> scenarios() {
    return List.of(
        new Named("kafka-kills/tx", (kafka, sqs) -> kafka.consumerKills("tx")),
        new Named("kafka-kills/outside", (kafka, sqs) -> kafka.consumerKills("outside")),
        new Named("broker-kill/tx", (kafka, sqs) -> kafka.brokerKill("tx")),
        new Named("broker-kill/outside", (kafka, sqs) -> kafka.brokerKill("outside")),
        new Named("store-outage/outside", (kafka, sqs) -> kafka.storeOutage("outside")),
        new Named("store-outage/tx", (kafka, sqs) -> kafka.storeOutage("tx")),
        new Named("redis-failover-acks/outside", (kafka, sqs) -> kafka.redisFailover(true)),
        new Named("redis-failover/outside", (kafka, sqs) -> kafka.redisFailover(false)),
        new Named("rebalance-storm/tx", (kafka, sqs) -> kafka.rebalanceStorm("tx")),
        new Named("rebalance-storm/outside", (kafka, sqs) -> kafka.rebalanceStorm("outside")),
        new Named("long-handlers/tx", (kafka, sqs) -> kafka.longHandlers("tx")),
        new Named("long-handlers/outside", (kafka, sqs) -> kafka.longHandlers("outside")),
        new Named("crash-loop/tx", (kafka, sqs) -> kafka.crashLoop("tx")),
        new Named("crash-loop/outside", (kafka, sqs) -> kafka.crashLoop("outside")),
        new Named("batch-crash-loop/tx", (kafka, sqs) -> kafka.batchCrashLoop("tx")),
        new Named("lease-expiry/tx", (kafka, sqs) -> kafka.leaseExpiry("tx")),
        new Named("lease-expiry/outside", (kafka, sqs) -> kafka.leaseExpiry("outside")),
        new Named("poison-mix/tx", (kafka, sqs) -> kafka.poisonMix("tx")),
        new Named("share-kills/tx", (kafka, sqs) -> kafka.shareGroupKills("tx")),
        new Named("share-kills/outside", (kafka, sqs) -> kafka.shareGroupKills("outside")),
        new Named("sqs-kills/tx", (kafka, sqs) -> sqs.consumerKills("tx")),
        new Named("sqs-kills/outside", (kafka, sqs) -> sqs.consumerKills("outside")),
        new Named("sqs-slow/tx", (kafka, sqs) -> sqs.slowHandlers("tx")),
        new Named("sqs-slow/outside", (kafka, sqs) -> sqs.slowHandlers("outside")),
        new Named("sqs-store-outage/outside", (kafka, sqs) -> sqs.storeOutage("outside")),
        new Named("sqs-store-outage/tx", (kafka, sqs) -> sqs.storeOutage("tx")));
  }

  /**
   * Runs the scenarios whose name contains {@code only} on {@link FaultSize#lanes()} lanes, each
   * lane on a {@link Lab} of its own (outages stop a lab's servers), the longest scenarios first.
   *
   * @param size the size
   * @param only a part of the names to run ("" for all)
   * @return one verdict per scenario and mode, in the report's order
   * @throws Exception when a scenario cannot run (a server does not start, the end is not reached)
   */
  static List<Verdict> run(FaultSize size, String only) throws Exception {
    List<Named> chosen = scenarios().stream().filter(n -> n.name().contains(only)).toList();
    Queue<Named> queue = new ConcurrentLinkedQueue<>(Schedule.longestFirst(chosen));
    Map<String, Verdict> verdicts = new ConcurrentHashMap<>();
    int lanes = Math.max(1, Math.min(size.lanes(), chosen.size()));
    ExecutorService pool = Executors.newFixedThreadPool(lanes);
    try {
      List<Future<Void>> running = new ArrayList<>();
      for (int lane = 0; lane < lanes; lane++) {
        running.add(pool.submit(() -> runLane(size, queue, verdicts)));
      }
      for (Future<Void> lane : running) {
        try {
          lane.get();
        } catch (ExecutionException e) {
          queue.clear(); // the other lanes finish the scenario they run, then stop
          throw e.getCause() instanceof Exception cause ? cause : e;
        }
      }
    } finally {
      pool.shutdown();
    }
    return chosen.stream().map(n -> verdicts.get(n.name())).toList();
  }

  private static Void runLane(FaultSize size, Queue<Named> queue, Map<String, Verdict> verdicts)
      throws Exception {
    try (Lab lab = new Lab()) {
      KafkaScenarios kafka = new KafkaScenarios(lab, size);
      SqsScenarios sqs = new SqsScenarios(lab, size);
      for (Named next = queue.poll(); next != null; next = queue.poll()) {
        Verdict v = next.scenario().run(kafka, sqs);
        System.out.println(v.describe());
        verdicts.put(next.name(), v);
      }
    }
    return null;
  }

  /** The store-outage cell: what the consumers did while the store was down. */
  static String outage(Verdict.Outage o) {
    if (o == null) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "%d effects while down; paused %.0f s, %d store calls while paused; resumed %.1f s after"
            + " its return",
        o.effectsWhileDown(),
        o.pausedSeconds(),
        o.storeCalls(),
        o.resumedAfterSeconds());
  }

  static void write(Path file, List<Verdict> verdicts, String size) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Reliability: the fault-injection suite\n\n");
    md.append("Generated by `siglo-faults` on ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(" — do not edit by hand; run it again instead:\n\n```bash\n")
        .append(
            size.equals("ci")
                ? COMMAND
                : COMMAND + " -Dfaults.args=\"--size=" + size + " --out=$PWD/docs/RELIABILITY.md\"")
        .append("\n```\n\n");
    md.append(
        "Each consumer runs in its own JVM and is SIGKILLed, SIGSTOPped, SIGTERMed or starved of"
            + " its broker or store while it works. Every handler execution writes a row to an"
            + " `effects` table in PostgreSQL; when the run is over, a checker reads that history"
            + " (not the logs) and counts, per key that must have exactly one effect, keys without"
            + " an effect (**lost keys**) and keys with more than one (**duplicated**); per message"
            + " (every consumer records each message its engine finished), messages never finished"
            + " although their offset was committed or they were deleted (**lost messages**, which"
            + " another copy of the same key would otherwise hide); effects of"
            + " messages that must have none, the dead letters by reason, and whether the consumer"
            + " group committed every partition to its end (Kafka; a share group: the broker reports its lag"
            + " as 0 on every partition) or the queue is empty (SQS).\n\n");
    md.append(
        "Two effect modes: **tx**, the effect is written by a PostgreSQL `TransactionalStep`, in"
            + " the same transaction as its idempotency record, with the PostgreSQL store; and"
            + " **outside**, the effect is an auto-committed insert of its own and the records are"
            + " in Redis. The suite fails when a **tx** scenario loses or duplicates anything, when"
            + " an **outside** scenario loses anything or, where no consumer crashes or freezes"
            + " (the store outages, the long handlers), duplicates anything, when a message that must have no effect has"
            + " one, when the dead letters differ from the ones expected, or when the end is not"
            + " reached.\n\n");
    md.append(
        "In the store-outage scenarios, the **store outage** column says what the consumer did"
            + " while its store was stopped: the effects written while it was down (a second after"
            + " it stopped; any would mean a handler ran without a claim), how long its intake was"
            + " paused, how many idempotency-store calls it made while paused (its probes, plus the"
            + " renewals and releases of handlers that were running when the store stopped; read"
            + " from Siglo's `siglo.store` timers in the consumer), and how soon after the store's"
            + " return it resumed. Such a scenario fails when an effect was written while the store"
            + " was down, when the intake never paused, when it made more than one store call per"
            + " paused second plus "
            + Verdict.Outage.CALLS_PER_WORKER
            + " per worker, or when it resumed more than "
            + String.format(Locale.ROOT, "%.0f", Verdict.Outage.MAX_RESUME_SECONDS)
            + " s after the store came back.\n\n");
    md.append(
        "| scenario | mode | faults injected | sent | keys | effects | lost keys | lost messages |"
            + " duplicated |"
            + " dead letters | end reached | store outage | seconds | result |\n");
    md.append("|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|---:|---|\n");
    for (Verdict v : verdicts) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %,d | %,d | %,d | %d | %d | %d | %s | %s | %s | %.0f | %s |%n",
              v.scenario(),
              v.mode(),
              v.faults(),
              v.sent(),
              v.keys(),
              v.effects(),
              v.lost(),
              v.lostMessages(),
              v.duplicated(),
              v.deadLetters().isEmpty() ? "none" : v.deadLetters().toString(),
              v.reachedEnd() ? "yes" : "**no**",
              outage(v.outage()),
              v.seconds(),
              v.passed() ? "pass" : "**FAIL**"));
    }
    md.append("\n## What is guaranteed, and the one window mode outside cannot close\n\n");
    md.append(
        "- **Nothing is lost.** An offset is committed, or an SQS message deleted, only after its"
            + " record was completed (or declined, or dead-lettered). A consumer killed at any"
            + " moment leaves its uncommitted records to be delivered again; a broker or store"
            + " outage stops progress (fail closed: no handler runs without a claim) and work"
            + " resumes when it is back.\n"
            + "- **Nothing twice, when the effect is in the store's transaction (tx).** The effect"
            + " and its `COMPLETED` record commit together or not at all, so a redelivery either"
            + " finds the record (and replays it) or finds neither (and runs the step once). A"
            + " consumer frozen past its lease may wake up and finish its transaction: the new"
            + " owner's insert of the same record waits on the row lock and then sees it completed."
            + " Its late message-level completion is rejected by the fencing token.\n"
            + "- **The window of mode outside.** When the effect is written by a system the store"
            + " does not control, there is a moment between the effect and the record's"
            + " completion. A crash there leaves the effect done and the record in progress; when"
            + " the lease expires another consumer claims the key and repeats the effect. Likewise"
            + " a consumer frozen after its claim but before its effect wakes up after its lease"
            + " was taken over and performs the effect a second time (fencing rejects its"
            + " completion, but cannot undo the effect). The duplicated column counts these"
            + " windows as they happened in this run. Closing them needs the effect and the record"
            + " in one transaction (mode tx), or an effect that is itself idempotent on the key"
            + " (an idempotency key passed to the payment gateway).\n");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
  }
}
