package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherConfigTest {
  @TempDir Path dir;

  private LauncherConfig config(String text, Map<String, String> env) throws Exception {
    Path file = dir.resolve("consumer.properties");
    Files.writeString(file, text);
    return LauncherConfig.load(file, env);
  }

  private static final String VALID =
      "siglo.handler="
          + RecordingHandler.class.getName()
          + "\n"
          + "siglo.kafka.bootstrap-servers=127.0.0.1:1\nsiglo.kafka.group-id=g\nsiglo.kafka.topics=t\n";

  @Test
  void environmentVariablesOverrideTheFile() throws Exception {
    LauncherConfig c = config(VALID, Map.of("SIGLO_KAFKA_GROUP_ID", "from-env"));
    assertThat(c.required(LauncherKey.KAFKA_GROUP)).isEqualTo("from-env");
    assertThat(c.required(LauncherKey.BROKER)).isEqualTo("kafka");
    assertThat(c.positiveInt(LauncherKey.CONCURRENCY)).isEqualTo(16);
  }

  @Test
  void brokenConfigurationsNameTheFileTheKeyAndTheProblem() throws Exception {
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(
                        VALID.replace(RecordingHandler.class.getName(), "com.acme.NoSuchHandler"),
                        Map.of())))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining(
            "consumer.properties: siglo.handler: class 'com.acme.NoSuchHandler' not found");
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(
                        VALID.replace(RecordingHandler.class.getName(), "java.lang.String"),
                        Map.of())))
        .hasMessageContaining("siglo.handler: java.lang.String does not implement MessageHandler");
    assertThatThrownBy(
            () -> SigloLauncher.start(config(VALID + "siglo.retry.backoff=fast\n", Map.of())))
        .hasMessageContaining("siglo.retry.backoff: 'fast' is not an ISO-8601 duration");
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(
                        VALID.replace("siglo.kafka.bootstrap-servers=127.0.0.1:1\n", ""),
                        Map.of())))
        .hasMessageContaining(
            "siglo.kafka.bootstrap-servers: is required (or set SIGLO_KAFKA_BOOTSTRAP_SERVERS)");
    assertThatThrownBy(() -> config(VALID + "siglo.kafka.topic=typo\n", Map.of()))
        .hasMessageContaining("siglo.kafka.topic: unknown key");
    assertThatThrownBy(
            () -> SigloLauncher.start(config(VALID + "siglo.concurrency=-3\n", Map.of())))
        .hasMessageContaining("siglo.concurrency: '-3' must be at least 1");
    assertThatThrownBy(() -> SigloLauncher.start(config(VALID + "siglo.store=mongo\n", Map.of())))
        .hasMessageContaining("siglo.store: 'mongo' must be one of memory, redis, postgres");
    String postgres =
        "siglo.store=postgres\nsiglo.store.postgres.url=jdbc:postgresql://127.0.0.1:1/x\n";
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(
                        VALID + postgres + "siglo.store.postgres.partition-width=PT1.5S\n",
                        Map.of())))
        .hasMessageContaining(
            "siglo.store.postgres.partition-width: 'PT1.5S' must be a positive number of whole"
                + " seconds");
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(
                        VALID
                            + "siglo.store=redis\nsiglo.store.redis.url=redis://127.0.0.1:1\n"
                            + "siglo.store.redis.hash-records=maybe\n",
                        Map.of())))
        .hasMessageContaining("siglo.store.redis.hash-records: 'maybe' must be one of true, false");
    assertThatThrownBy(() -> SigloLauncher.start(config(VALID + "siglo.key=headr:x\n", Map.of())))
        .hasMessageContaining("siglo.key: 'headr:x' is not a key source");
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(VALID + "siglo.classification.permanent=com.acme.Nope\n", Map.of())))
        .hasMessageContaining("siglo.classification.permanent: class 'com.acme.Nope' not found");
    assertThatThrownBy(
            () ->
                SigloLauncher.start(
                    config(VALID + "siglo.payload=json:com.acme.Order\n", Map.of())))
        .hasMessageContaining("siglo.payload: class 'com.acme.Order' not found");
  }

  @Test
  void yamlFilesAreReadAsTheSameKeys() throws Exception {
    Path file = dir.resolve("consumer.yaml");
    String yaml =
        String.join(
            "\n",
            "siglo:",
            "  handler: " + RecordingHandler.class.getName(),
            "  kafka:",
            "    bootstrap-servers: 127.0.0.1:9092",
            "    group-id: payments",
            "    topics: [orders, refunds]",
            "  retry:",
            "    max-attempts: 4",
            "  classification:",
            "    permanent: [java.lang.IllegalArgumentException, java.lang.IllegalStateException]",
            "");
    Files.writeString(file, yaml + "  kafak:\n    typo: true\n");
    assertThatThrownBy(() -> LauncherConfig.load(file, Map.of()))
        .hasMessageContaining("siglo.kafak.typo: unknown key");
    Files.writeString(file, yaml);
    LauncherConfig c = LauncherConfig.load(file, Map.of());
    assertThat(c.required(LauncherKey.KAFKA_TOPICS)).isEqualTo("orders,refunds");
    assertThat(c.positiveInt(LauncherKey.RETRY_MAX_ATTEMPTS)).isEqualTo(4);
    assertThat(c.classification().getProperty("siglo.classification.permanent"))
        .isEqualTo("java.lang.IllegalArgumentException,java.lang.IllegalStateException");
  }
}
