package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SqsServer;
import dev.siglo.testkit.SqsServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A failing dependency fills the dead-letter topic or queue; after the fix, {@code siglo redrive}
 * (in its own JVM, as an operator runs it) sends the dead letters back: every key has one effect, a
 * second run is a no-op, a record that still fails stops at the loop guard, and a dry run changes
 * nothing. Consumers run at the launcher's defaults, on a Redis store the redrive reads.
 */
class RedriveIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();

  private static final int KEYS = 10;

  @TempDir Path dir;
  private RedisServer redis;

  @BeforeEach
  void start() {
    redis = RedisServer.custom().start();
    DependencyHandler.EFFECTS.clear();
    DependencyHandler.BROKEN.set(true);
  }

  @AfterEach
  void stop() {
    redis.close();
  }

  private static SigloProcess.Result redrive(Path config, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("redrive", "-c", config.toString()));
    args.addAll(List.of(options));
    SigloProcess.Result run =
        SigloProcess.run(
            config.getParent(),
            Map.of("AWS_ACCESS_KEY_ID", "test", "AWS_SECRET_ACCESS_KEY", "test"),
            "",
            args.toArray(String[]::new));
    assertThat(run.code()).as(run.output()).isZero();
    return run;
  }

  private void assertEachFixedKeyRanOnce() {
    assertThat(DependencyHandler.EFFECTS).hasSize(KEYS);
    assertThat(DependencyHandler.EFFECTS.values())
        .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  private String store() {
    return "siglo.store.type=redis\nsiglo.store.redis.url=redis://127.0.0.1:" + redis.port() + "\n";
  }

  @Test
  void onKafka() throws Exception {
    String topic = "redrive-" + System.nanoTime();
    KAFKA.broker().createTopics(2, topic, topic + "-dlt");
    Path config = dir.resolve("consumer.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "siglo.handler=" + DependencyHandler.class.getName(),
            "siglo.key.source=json-pointer:/id",
            "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
            "siglo.kafka.group-id=" + topic,
            "siglo.kafka.topics=" + topic,
            store()));
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "R", KEYS, 1);
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "stuck-", 1, 1);
    try (SigloLauncher.Running running =
        SigloLauncher.start(LauncherConfig.load(config, Map.of()))) {
      await().atMost(Duration.ofSeconds(120)).until(() -> end(topic + "-dlt") == KEYS + 1);
      DependencyHandler.BROKEN.set(false); // the fix

      SigloProcess.Result dry = redrive(config, "--dry-run", "--max-redrives", "1");
      assertThat(dry.output())
          .contains("dry run, nothing changed: redriven " + (KEYS + 1) + ", completed (skipped) 0")
          .contains("WOULD_REDRIVE " + topic + "-dlt-");
      assertThat(end(topic)).as("nothing sent").isEqualTo(KEYS + 1);
      assertThat(DependencyHandler.EFFECTS).isEmpty();

      SigloProcess.Result first = redrive(config, "--max-redrives", "1");
      assertThat(first.output()).contains("redriven " + (KEYS + 1) + ", completed (skipped) 0");
      await().atMost(Duration.ofSeconds(60)).until(() -> DependencyHandler.EFFECTS.size() == KEYS);
      // the record that still fails comes back to the dead-letter topic, redriven once
      await().atMost(Duration.ofSeconds(120)).until(() -> end(topic + "-dlt") == KEYS + 2);
      assertEachFixedKeyRanOnce();

      SigloProcess.Result second = redrive(config, "--max-redrives", "1");
      assertThat(second.output())
          .contains(
              "redriven 0, completed (skipped) "
                  + KEYS
                  + ", stopped at the loop guard 1, superseded 1")
          .contains("LOOP_GUARD")
          .contains("key stuck-0");
      assertThat(end(topic)).as("the second run sent nothing").isEqualTo(2 * (KEYS + 1));
      assertThat(running.termination()).isNotDone();
    }
    assertEachFixedKeyRanOnce();
  }

  @Test
  void onSqs() throws Exception {
    SqsServer server = SQS.server();
    String queue = "redrive-" + System.nanoTime();
    String url = server.createQueue(queue, Map.of());
    String dlq = server.createQueue(queue + "-dlq", Map.of());
    Path config = dir.resolve("sqs.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "siglo.broker=sqs",
            "siglo.handler=" + DependencyHandler.class.getName(),
            "siglo.sqs.endpoint=" + server.endpoint(),
            "siglo.sqs.region=us-east-1",
            "siglo.sqs.queue=" + queue,
            "siglo.sqs.dead-letter-queue=" + queue + "-dlq",
            store()));
    SqsClient sqs = server.client();
    for (int i = 0; i <= KEYS; i++) {
      String body = i == KEYS ? "stuck-0" : "R" + i;
      SqsServer.sendWithKey(sqs, url, "key-" + body, body);
    }
    try (SigloLauncher.Running running =
        SigloLauncher.start(
            LauncherConfig.load(
                config, Map.of("AWS_ACCESS_KEY_ID", "test", "AWS_SECRET_ACCESS_KEY", "test")))) {
      await()
          .atMost(Duration.ofSeconds(180))
          .until(() -> SqsServer.messagesIn(sqs, dlq) == KEYS + 1);
      DependencyHandler.BROKEN.set(false);

      SigloProcess.Result dry = redrive(config, "--dry-run", "--max-redrives", "1");
      assertThat(dry.output()).contains("dry run, nothing changed: redriven " + (KEYS + 1));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> SqsServer.messagesIn(sqs, dlq) == KEYS + 1);
      assertThat(DependencyHandler.EFFECTS).isEmpty();

      SigloProcess.Result first = redrive(config, "--max-redrives", "1");
      assertThat(first.output()).contains("redriven " + (KEYS + 1) + ", completed (skipped) 0");
      await().atMost(Duration.ofSeconds(60)).until(() -> DependencyHandler.EFFECTS.size() == KEYS);
      await().atMost(Duration.ofSeconds(180)).until(() -> SqsServer.messagesIn(sqs, dlq) == 1);
      assertEachFixedKeyRanOnce();

      SigloProcess.Result second = redrive(config, "--max-redrives", "1");
      assertThat(second.output())
          .contains("redriven 0, completed (skipped) 0, stopped at the loop guard 1")
          .contains("key key-stuck-0");
      await().atMost(Duration.ofSeconds(30)).until(() -> SqsServer.messagesIn(sqs, dlq) == 1);
      assertThat(SqsServer.messagesIn(sqs, url)).isZero();
      assertThat(running.termination()).isNotDone();
    }
    assertEachFixedKeyRanOnce();
  }

  /** The sum of a topic's end offsets. */
  private static long end(String topic) throws Exception {
    try (var admin = KAFKA.broker().admin()) {
      var partitions =
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions();
      Map<TopicPartition, OffsetSpec> specs =
          partitions.stream()
              .collect(
                  Collectors.toMap(
                      p -> new TopicPartition(topic, p.partition()), p -> OffsetSpec.latest()));
      return admin.listOffsets(specs).all().get().values().stream()
          .mapToLong(i -> i.offset())
          .sum();
    }
  }
}
