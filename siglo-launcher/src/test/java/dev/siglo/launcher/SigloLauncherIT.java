package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.testkit.ChildJvm;
import dev.siglo.testkit.KafkaBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class SigloLauncherIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  /** Starts the launcher on {@code file} against the broker, its summary printed to {@code out}. */
  private static SigloLauncher.Running start(Path file, java.io.ByteArrayOutputStream out)
      throws Exception {
    return SigloLauncher.start(
        LauncherConfig.load(
            file, Map.of("SIGLO_KAFKA_BOOTSTRAP_SERVERS", KAFKA.broker().bootstrapServers())),
        new java.io.PrintStream(out, true, StandardCharsets.UTF_8));
  }

  /** Writes a properties file of the lines. */
  private static Path properties(Path dir, String name, String... lines) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, String.join("\n", lines));
    return file;
  }

  @Test
  void aConsumerStartedFromASampleConfigurationRunsEachKeyOnce(@TempDir Path dir) throws Exception {
    String topic = "launched-" + System.nanoTime();
    KAFKA.broker().createTopics(3, topic, topic + "-dlt");
    Path file = dir.resolve("consumer.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.broker=kafka",
            "siglo.handler=" + RecordingHandler.class.getName(),
            "siglo.payload=utf8",
            "siglo.key=json-pointer:/id",
            "siglo.key.namespace=launcher-test",
            "siglo.kafka.topics=" + topic,
            "siglo.kafka.group-id=launched",
            "siglo.metrics.prometheus-port=" + dev.siglo.testkit.FreePorts.loopback(),
            "siglo.metrics.bind-address=127.0.0.1",
            "siglo.classification.permanent=java.lang.IllegalArgumentException"));
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "L", 50, 3);
    RecordingHandler.EFFECTS.clear();
    try (SigloLauncher.Running running =
        SigloLauncher.start(
            LauncherConfig.load(
                file,
                Map.of("SIGLO_KAFKA_BOOTSTRAP_SERVERS", KAFKA.broker().bootstrapServers())))) {
      await().atMost(Duration.ofSeconds(60)).until(() -> RecordingHandler.EFFECTS.size() == 50);
      assertThat(running.termination()).isNotDone();
      String port = LauncherConfig.load(file, Map.of()).get(LauncherKey.METRICS_PORT);
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                String scrape =
                    new String(
                        java.net
                            .URI
                            .create("http://127.0.0.1:" + port + "/metrics")
                            .toURL()
                            .openStream()
                            .readAllBytes(),
                        StandardCharsets.UTF_8);
                assertThat(scrape)
                    .contains(
                        "siglo_messages_total{destination=\""
                            + topic
                            + "\",outcome=\"duplicate\",system=\"kafka\"} 100.0")
                    .contains(
                        "siglo_messages_total{destination=\""
                            + topic
                            + "\",outcome=\"processed\",system=\"kafka\"} 50.0");
              });
    }
    assertThat(RecordingHandler.EFFECTS).containsKey("ff:idemp:launcher-test:_:L7");
    assertThat(RecordingHandler.EFFECTS.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  @Test
  void aShareGroupConsumerStartedFromAConfigurationRunsEachKeyOnce(@TempDir Path dir)
      throws Exception {
    String topic = "shared-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    Path file = dir.resolve("consumer.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.broker=kafka-share",
            "siglo.handler=" + RecordingHandler.class.getName(),
            "siglo.key=json-pointer:/id",
            "siglo.key.namespace=launcher-share",
            "siglo.kafka.topics=" + topic,
            "siglo.kafka.group-id=launched-share",
            "siglo.kafka.share.max-in-flight=20"));
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "S", 30, 3);
    RecordingHandler.EFFECTS.clear();
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    try (SigloLauncher.Running running =
        SigloLauncher.start(
            LauncherConfig.load(
                file, Map.of("SIGLO_KAFKA_BOOTSTRAP_SERVERS", KAFKA.broker().bootstrapServers())),
            new java.io.PrintStream(printed, true, StandardCharsets.UTF_8))) {
      await().atMost(Duration.ofSeconds(60)).until(() -> RecordingHandler.EFFECTS.size() == 30);
      assertThat(running.termination()).isNotDone();
    }
    assertThat(RecordingHandler.EFFECTS.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains("kafka share group at ")
        .contains("20 records at most");
  }

  @Test
  void aBatchHandlerStartedFromAConfigurationRunsEachKeyOnceInBatchesOfTheConfiguredSize(
      @TempDir Path dir) throws Exception {
    String topic = "batched-" + System.nanoTime();
    KAFKA.broker().createTopics(3, topic, topic + "-dlt");
    Path file =
        properties(
            dir,
            "consumer.properties",
            "siglo.broker=kafka",
            "siglo.handler=" + RecordingBatchHandler.class.getName(),
            "siglo.key=json-pointer:/id",
            "siglo.key.namespace=launcher-batch",
            "siglo.batch.size=25",
            "siglo.batch.linger=PT0.05S",
            "siglo.kafka.topics=" + topic,
            "siglo.kafka.group-id=launched-batch");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "B", 60, 3);
    RecordingBatchHandler.EFFECTS.clear();
    RecordingBatchHandler.BATCH_SIZES.clear();
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    try (SigloLauncher.Running running = start(file, printed)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> RecordingBatchHandler.EFFECTS.size() == 60);
      assertThat(running.termination()).isNotDone();
    }
    assertThat(RecordingBatchHandler.EFFECTS.values())
        .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(RecordingBatchHandler.BATCH_SIZES).allMatch(n -> n <= 25).anyMatch(n -> n > 1);
    assertThat(printed.toString(StandardCharsets.UTF_8))
        .contains(RecordingBatchHandler.class.getName() + " (BatchMessageHandler)")
        .contains("batches of up to 25 (linger PT0.05S)");
  }

  @Test
  void anAsyncHandlerStartedFromAConfigurationOnAShareGroupRunsEachKeyOnce(@TempDir Path dir)
      throws Exception {
    String topic = "async-launched-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    Path file =
        properties(
            dir,
            "consumer.properties",
            "siglo.broker=kafka-share",
            "siglo.handler=" + RecordingAsyncHandler.class.getName(),
            "siglo.key=json-pointer:/id",
            "siglo.key.namespace=launcher-async",
            "siglo.async.timeout=PT10S",
            "siglo.kafka.topics=" + topic,
            "siglo.kafka.group-id=launched-async");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "A", 30, 2);
    RecordingAsyncHandler.EFFECTS.clear();
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    try (SigloLauncher.Running running = start(file, printed)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> RecordingAsyncHandler.EFFECTS.size() == 30);
      assertThat(running.termination()).isNotDone();
    }
    assertThat(RecordingAsyncHandler.EFFECTS.values())
        .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("stage timeout PT10S");
  }

  @Test
  void aSettingOfAnotherHandlerShapeIsRefusedNamingTheSetting(@TempDir Path dir) throws Exception {
    refused(
        dir,
        RecordingHandler.class,
        "siglo.batch.size",
        "applies to a BatchMessageHandler",
        "siglo.batch.size=10");
    refused(
        dir,
        RecordingBatchHandler.class,
        "siglo.async.timeout",
        "applies to an AsyncMessageHandler",
        "siglo.async.timeout=PT5S");
    refused(
        dir,
        RecordingBatchHandler.class,
        "siglo.kafka.share.max-in-flight",
        "maxInFlight (10) must be at least batchSize (25)",
        "siglo.broker=kafka-share",
        "siglo.batch.size=25",
        "siglo.kafka.share.max-in-flight=10");
  }

  /** A consumer of {@code handler} with {@code settings} fails at start, naming the key. */
  private static void refused(
      Path dir, Class<?> handler, String key, String problem, String... settings) throws Exception {
    java.util.List<String> lines =
        new java.util.ArrayList<>(
            java.util.List.of(
                "siglo.handler=" + handler.getName(),
                "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
                "siglo.kafka.topics=t",
                "siglo.kafka.group-id=g"));
    lines.addAll(java.util.List.of(settings));
    Path file = properties(dir, "refused.properties", lines.toArray(String[]::new));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> SigloLauncher.start(LauncherConfig.load(file, Map.of())))
        .hasMessageContaining(key)
        .hasMessageContaining(problem);
  }

  @Test
  void orderingIsRefusedForAShareGroupNamingTheSetting(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("consumer.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.broker=kafka-share",
            "siglo.handler=" + RecordingHandler.class.getName(),
            "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
            "siglo.kafka.topics=t",
            "siglo.kafka.group-id=g",
            "siglo.kafka.ordering=PARTITION"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> SigloLauncher.start(LauncherConfig.load(file, Map.of())))
        .hasMessageContaining("siglo.kafka.ordering")
        .hasMessageContaining("share groups promise no order");
  }

  @Test
  void sigtermStopsTheLauncherCleanlyWithExitCodeZeroAfterCommitting(@TempDir Path dir)
      throws Exception {
    String topic = "sigterm-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "S", 20, 1);
    Path file = dir.resolve("consumer.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.handler=" + RecordingHandler.class.getName(),
            "siglo.key=json-pointer:/id",
            "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
            "siglo.kafka.topics=" + topic,
            "siglo.kafka.group-id=sigterm"));
    Process launcher =
        new ProcessBuilder(launcherCommand(file))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("launcher.log").toFile())
            .start();
    try (var admin = KAFKA.broker().admin()) {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                var offsets =
                    admin.listConsumerGroupOffsets("sigterm").partitionsToOffsetAndMetadata().get();
                return offsets.get(tp) != null && offsets.get(tp).offset() == 20;
              });
    }
    launcher.destroy(); // SIGTERM
    assertThat(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    String log = Files.readString(dir.resolve("launcher.log"));
    assertThat(launcher.exitValue()).as(log).isZero();
    // the summary once, and none of the Kafka client's INFO chatter
    assertThat(log.lines().filter(l -> l.startsWith("siglo: starting the consumer of ")))
        .as(log)
        .hasSize(1);
    assertThat(log.lines().filter(l -> l.contains(" INFO org.apache.kafka"))).as(log).isEmpty();
  }

  @Test
  void anInvalidConfigurationExitsWithCodeTwoAndNamesTheProblem(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("broken.properties");
    Files.writeString(
        file, "siglo.handler=" + RecordingHandler.class.getName() + "\nsiglo.retry.backoff=soon\n");
    Process launcher = new ProcessBuilder(launcherCommand(file)).redirectErrorStream(true).start();
    String output = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(launcher.exitValue()).isEqualTo(2);
    assertThat(output)
        .contains("broken.properties: siglo.retry.backoff: 'soon' is not an ISO-8601 duration");
  }

  @Test
  void theRunnableJarStartsTheLauncher(@TempDir Path dir) throws Exception {
    Path jar;
    try (var jars = Files.list(Path.of("target"))) {
      jar =
          jars.filter(p -> p.getFileName().toString().endsWith("-all.jar"))
              .findFirst()
              .orElseThrow();
    }
    Path file = dir.resolve("broken.properties");
    Files.writeString(file, "siglo.broker=rabbitmq\n");
    Process launcher =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString(),
                file.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(launcher.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(launcher.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    assertThat(launcher.exitValue()).as(output).isEqualTo(2);
    assertThat(output)
        .contains("broken.properties: siglo.handler: is required (or set SIGLO_HANDLER)");
  }

  @Test
  void aPostgresStoreFromConfigurationKeepsTheRecordsInItsTable(@TempDir Path dir)
      throws Exception {
    String topic = "pg-store-" + System.nanoTime();
    KAFKA.broker().createTopics(2, topic, topic + "-dlt");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "P", 10, 2);
    try (dev.siglo.testkit.PostgresServer pg = dev.siglo.testkit.PostgresServer.start()) {
      Path file = dir.resolve("consumer.yaml");
      Files.writeString(
          file,
          String.join(
              "\n",
              "siglo:",
              "  handler: " + RecordingHandler.class.getName(),
              "  key: json-pointer:/id",
              "  key.namespace: pg-launcher",
              "  store: postgres",
              "  store.postgres.url: \"" + pg.jdbcUrl() + "\"",
              "  kafka:",
              "    bootstrap-servers: " + KAFKA.broker().bootstrapServers(),
              "    topics: " + topic,
              "    group-id: pg-launched",
              ""));
      RecordingHandler.EFFECTS.clear();
      try (SigloLauncher.Running running =
          SigloLauncher.start(LauncherConfig.load(file, Map.of()))) {
        await().atMost(Duration.ofSeconds(60)).until(() -> RecordingHandler.EFFECTS.size() == 10);
        await().atMost(Duration.ofSeconds(30)).until(() -> completedRows(pg.jdbcUrl()) == 10);
        assertThat(running.termination()).isNotDone();
      }
      assertThat(RecordingHandler.EFFECTS.values())
          .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    }
  }

  @Test
  void aRunningConsumerPurgesExpiredRowsOfItsPostgresStore(@TempDir Path dir) throws Exception {
    String topic = "pg-purge-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "Q", 5, 1);
    try (dev.siglo.testkit.PostgresServer pg = dev.siglo.testkit.PostgresServer.start()) {
      Path file = dir.resolve("purging.properties");
      Files.writeString(
          file,
          String.join(
              "\n",
              "siglo.handler=" + RecordingHandler.class.getName(),
              "siglo.key.source=json-pointer:/id",
              "siglo.key.namespace=pg-purge",
              "siglo.store.type=postgres",
              "siglo.store.postgres.url=" + pg.jdbcUrl(),
              // the mechanism under test: records kept a second, purged a second after that
              "siglo.idempotency.ttl=PT1S",
              "siglo.store.postgres.purge-grace=PT1S",
              "siglo.store.postgres.purge-interval=PT1S",
              "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
              "siglo.kafka.topics=" + topic,
              "siglo.kafka.group-id=" + topic,
              ""));
      RecordingHandler.EFFECTS.clear();
      try (SigloLauncher.Running running =
          SigloLauncher.start(LauncherConfig.load(file, Map.of()))) {
        await().atMost(Duration.ofSeconds(60)).until(() -> RecordingHandler.EFFECTS.size() == 5);
        await().atMost(Duration.ofSeconds(60)).until(() -> rows(pg.jdbcUrl()) == 0);
        assertThat(running.termination()).isNotDone();
      }
    }
  }

  private static int rows(String url) throws Exception {
    try (var c = java.sql.DriverManager.getConnection(url);
        var rs = c.createStatement().executeQuery("SELECT count(*) FROM siglo_idempotency")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static int completedRows(String url) throws Exception {
    try (var c = java.sql.DriverManager.getConnection(url);
        var rs =
            c.createStatement()
                .executeQuery("SELECT count(*) FROM siglo_idempotency WHERE state = 'C'")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** Sends {@code copies} copies of {@code count} JSON records {"id": prefix + i}. */
  private static java.util.List<String> launcherCommand(Path file) {
    java.util.List<String> command = ChildJvm.command(SigloLauncher.class);
    command.add(file.toString());
    return command;
  }
}
