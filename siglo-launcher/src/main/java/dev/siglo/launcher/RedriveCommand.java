package dev.siglo.launcher;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.spi.Redrives;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.kafka.KafkaRedrive;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.sqs.SigloSqsConsumer;
import dev.siglo.sqs.SqsRedrive;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * {@code siglo redrive}: dead letters back to the consumer's topics or queue, selected by reason,
 * time, key and count, each key already completed in the consumer's store reported and skipped, and
 * a record redriven {@code --max-redrives} times stopped (the loop guard).
 */
@Command(
    name = "redrive",
    mixinStandardHelpOptions = true,
    description = {
      "Sends dead letters back to the topics or queue they came from, with their original key,"
          + " value and headers plus a redrive count.",
      "Keys that completed meanwhile in the consumer's store are reported and skipped; a record"
          + " redriven --max-redrives times stays (the loop guard). --dry-run changes nothing."
    })
final class RedriveCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = {"-c", "--config"},
      required = true,
      paramLabel = "<config>",
      description = "the consumer's configuration file")
  Path config;

  @Option(
      names = "--from",
      paramLabel = "<topic|queue>",
      description =
          "the dead-letter topics or queue to read (default: the configuration's, <topic>-dlt or"
              + " siglo.sqs.dead-letter-queue)")
  List<String> from = new ArrayList<>();

  @Option(names = "--reason", description = "take only dead letters of this reason (repeatable)")
  Set<String> reasons = Set.of();

  @Option(names = "--since", description = "take only those dead-lettered at or after (ISO-8601)")
  Instant since;

  @Option(names = "--until", description = "take only those dead-lettered before (ISO-8601)")
  Instant until;

  @Option(names = "--key", description = "take only this idempotency key (repeatable)")
  Set<String> keys = Set.of();

  @Option(names = "--limit", description = "redrive at most this many (default: all)")
  int limit = Integer.MAX_VALUE;

  @Option(
      names = "--max-redrives",
      description =
          "the loop guard: a record redriven this many times stays (default: ${DEFAULT-VALUE})")
  int maxRedrives = 3;

  @Option(names = "--dry-run", description = "report what would be redriven, change nothing")
  boolean dryRun;

  @Override
  public Integer call() {
    LauncherConfig c = LauncherConfig.load(config, System.getenv());
    String broker = c.oneOf(LauncherKey.BROKER, "kafka", "kafka-share", "sqs");
    PrintWriter out = spec.commandLine().getOut();
    Redrives.Selection selection;
    try {
      selection = new Redrives.Selection(reasons, since, until, keys, limit, maxRedrives);
    } catch (IllegalArgumentException e) {
      throw c.error("--limit/--max-redrives", e.getMessage());
    }
    IdempotencyStore store = null;
    if ("memory".equals(c.oneOf(LauncherKey.STORE, "memory", "redis", "postgres"))) {
      out.println(
          "siglo: the configuration's store is in-memory: completed keys cannot be told apart;"
              + " every selected dead letter is redriven (the consumer still runs each key once)");
    } else {
      store = LauncherStores.openChecked(c);
    }
    try {
      Redrives.Planner planner =
          new Redrives.Planner(selection, store, SigloLauncher.keys(c), dryRun);
      if (!broker.equals("sqs")) { // a share group's dead letters are on a topic too
        kafka(c, planner);
      } else {
        sqs(c, planner);
      }
      planner.lines().forEach(out::println);
      out.println(
          (dryRun ? "dry run, nothing changed: " : "")
              + "redriven "
              + planner.count(Redrives.Verdict.REDRIVEN)
              + ", completed (skipped) "
              + planner.count(Redrives.Verdict.COMPLETED)
              + ", stopped at the loop guard "
              + planner.count(Redrives.Verdict.LOOP_GUARD)
              + ", superseded "
              + planner.count(Redrives.Verdict.SUPERSEDED)
              + ", not selected "
              + planner.count(Redrives.Verdict.NOT_SELECTED));
      return 0;
    } finally {
      if (store != null) {
        store.close();
      }
    }
  }

  private static <T> Function<Message, Optional<String>> rawKey(
      PayloadDecoder<T> decoder, IdempotencyKeyExtractor<Object> extractor) {
    return m -> Redrives.rawKey(m, decoder, extractor);
  }

  private void kafka(LauncherConfig c, Redrives.Planner planner) {
    Map<String, Object> client = new HashMap<>(c.kafkaProperties());
    client.put(
        CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, c.required(LauncherKey.KAFKA_BOOTSTRAP));
    List<String> topics = new ArrayList<>(from);
    if (topics.isEmpty()) {
      String suffix = c.required(LauncherKey.KAFKA_DLT_SUFFIX);
      for (String t : c.required(LauncherKey.KAFKA_TOPICS).split("\\s*,\\s*")) {
        topics.add(t + suffix);
      }
    }
    IdempotencyKeyExtractor<Object> extractor = SigloLauncher.keyExtractor(c);
    KafkaRedrive.run(
        client,
        topics,
        rawKey(
            SigloLauncher.decoder(c),
            extractor == null ? SigloKafkaConsumer.defaultKeyExtractor() : extractor),
        planner);
  }

  private void sqs(LauncherConfig c, Redrives.Planner planner) {
    StartupChecks checks = new StartupChecks(c);
    try (SqsClient sqs = SqsLaunch.client(c, SqsLaunch.credentials(c))) {
      String queue = checks.queueUrl(sqs, LauncherKey.SQS_QUEUE, c.required(LauncherKey.SQS_QUEUE));
      String dlq;
      if (!from.isEmpty()) {
        dlq = checks.queueUrl(sqs, LauncherKey.SQS_DLQ, from.get(0));
      } else if (c.get(LauncherKey.SQS_DLQ) != null) {
        dlq = checks.queueUrl(sqs, LauncherKey.SQS_DLQ, c.get(LauncherKey.SQS_DLQ));
      } else if (c.get(LauncherKey.SQS_DLQ_URL) != null) {
        dlq = c.get(LauncherKey.SQS_DLQ_URL);
      } else {
        throw c.error(
            LauncherKey.SQS_DLQ.key(),
            "no dead-letter queue configured: give it, or --from <queue name>");
      }
      IdempotencyKeyExtractor<Object> extractor = SigloLauncher.keyExtractor(c);
      SqsRedrive.run(
          sqs,
          dlq,
          queue,
          rawKey(
              SigloLauncher.decoder(c),
              extractor == null ? SigloSqsConsumer.defaultKeyExtractor() : extractor),
          planner);
    }
  }
}
