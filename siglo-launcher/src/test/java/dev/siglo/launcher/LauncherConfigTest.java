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
        .hasMessageContaining(
            "siglo.handler: java.lang.String implements none of MessageHandler,"
                + " AsyncMessageHandler, BatchMessageHandler");
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
    assertThatThrownBy(
            () -> SigloLauncher.start(config(VALID + "siglo.worker-threads=green\n", Map.of())))
        .hasMessageContaining("siglo.worker-threads: 'green' must be one of platform, virtual");
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

  @Test
  void aKeyGivenTwiceIsAnErrorNamingBothLines() throws Exception {
    Path yaml = dir.resolve("consumer.yaml");
    // written the natural way: the second 'store' would silently replace the first
    Files.writeString(
        yaml,
        String.join(
            "\n",
            "siglo:",
            "  handler: " + RecordingHandler.class.getName(),
            "  store: redis",
            "  store:",
            "    redis:",
            "      url: redis://127.0.0.1:6379",
            ""));
    assertThatThrownBy(() -> LauncherConfig.load(yaml, Map.of()))
        .hasMessage(yaml + ": siglo.store: set twice, on line 3 and on line 4 (remove one)");
    Files.writeString(
        yaml,
        String.join("\n", "siglo:", "  kafka.group-id: a", "  kafka:", "    group-id: b", ""));
    assertThatThrownBy(() -> LauncherConfig.load(yaml, Map.of()))
        .hasMessage(
            yaml + ": siglo.kafka.group-id: set twice, on line 2 and on line 4 (remove one)");
    Files.writeString(
        yaml, String.join("\n", "siglo:", "  store: redis", "  store.type: postgres", ""));
    assertThatThrownBy(() -> LauncherConfig.load(yaml, Map.of()))
        .hasMessage(
            yaml
                + ": siglo.store.type: set twice, as siglo.store on line 2 and as siglo.store.type"
                + " on line 3 (remove one)");
    assertThatThrownBy(() -> config(VALID + "siglo.kafka.group-id=again\n", Map.of()))
        .hasMessageEndingWith(
            "consumer.properties: siglo.kafka.group-id: set twice, on line 3 and on line 5 (remove"
                + " one)");
  }

  @Test
  void theStoreTypeReadsInYamlNextToItsOptions() throws Exception {
    Path yaml = dir.resolve("consumer.yml");
    Files.writeString(
        yaml,
        String.join(
            "\n",
            "siglo:",
            "  store:",
            "    type: redis",
            "    redis:",
            "      url: redis://127.0.0.1:6379",
            ""));
    LauncherConfig c = LauncherConfig.load(yaml, Map.of());
    assertThat(c.get(LauncherKey.STORE)).isEqualTo("redis");
    assertThat(c.get(LauncherKey.STORE_REDIS_URL)).isEqualTo("redis://127.0.0.1:6379");
  }

  @Test
  void secretsComeFromTheEnvironmentOrFilesAndKafkaPropertiesPassThrough() throws Exception {
    Path secret = dir.resolve("redis-password");
    Files.writeString(secret, "s3cret\n");
    LauncherConfig c =
        config(
            VALID
                + "siglo.store.redis.password=${file:"
                + secret
                + "}\n"
                + "siglo.store.postgres.password=${env:PG_PASSWORD}\n"
                + "siglo.kafka.properties.security.protocol=SASL_PLAINTEXT\n"
                + "siglo.kafka.properties.sasl.mechanism=PLAIN\n",
            Map.of(
                "PG_PASSWORD", "from-env",
                "SIGLO_KAFKA_PROPERTIES_SASL_JAAS_CONFIG", "jaas-line",
                "SIGLO_KAFKA_PROPERTIES_SASL_MECHANISM", "SCRAM-SHA-512"));
    assertThat(c.get(LauncherKey.STORE_REDIS_PASSWORD)).isEqualTo("s3cret");
    assertThat(c.get(LauncherKey.STORE_POSTGRES_PASSWORD)).isEqualTo("from-env");
    assertThat(c.kafkaProperties())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "jaas-line"));
    assertThat(StartupSummary.properties(c.kafkaProperties()))
        .isEqualTo(
            "sasl.jaas.config=****, sasl.mechanism=SCRAM-SHA-512, security.protocol=SASL_PLAINTEXT");
    LauncherConfig missing = config(VALID + "siglo.store.redis.password=${env:NOPE}\n", Map.of());
    assertThatThrownBy(() -> missing.get(LauncherKey.STORE_REDIS_PASSWORD))
        .hasMessageContaining(
            "siglo.store.redis.password: the environment variable NOPE is not set");
    LauncherConfig noFile =
        config(VALID + "siglo.store.redis.password=${file:/no/such/file}\n", Map.of());
    assertThatThrownBy(() -> noFile.get(LauncherKey.STORE_REDIS_PASSWORD))
        .hasMessageContaining("siglo.store.redis.password: cannot read /no/such/file");
  }

  @Test
  void virtualWorkerThreadsAreRefusedAtStartNamingTheSettingBeforeJdk21() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        dev.siglo.consumer.WorkerThreads.virtualThreadsAvailable(), "this JVM has virtual threads");

    assertThatThrownBy(
            () -> SigloLauncher.start(config(VALID + "siglo.worker-threads=virtual\n", Map.of())))
        .hasMessageContaining("siglo.worker-threads: virtual worker threads need JDK 21 or later");
  }
}
