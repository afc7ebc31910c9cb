package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.RedisServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher against secured servers: Kafka through its SASL/PLAIN listener and Redis over TLS
 * with a password, every secret from the environment; the start-up summary names both and prints no
 * secret.
 */
class LauncherSecuredIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private static String jaas(String password) {
    return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
        + KafkaBroker.SASL_USER
        + "\" password=\""
        + password
        + "\";";
  }

  private static Path config(Path dir, String topic, RedisServer redis) throws Exception {
    Path file = dir.resolve("secured.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo:",
            "  handler: " + RecordingHandler.class.getName(),
            "  key:",
            "    source: json-pointer:/id",
            "    namespace: secured",
            "  store:",
            "    type: redis",
            "    redis:",
            "      url: rediss://127.0.0.1:" + redis.port(),
            "      password: ${env:REDIS_PASSWORD}",
            "      truststore: " + redis.trustStore().orElseThrow(),
            "      truststore-password: " + RedisServer.TRUST_STORE_PASSWORD,
            "  kafka:",
            "    bootstrap-servers: " + KAFKA.broker().saslBootstrapServers(),
            "    group-id: secured-" + topic,
            "    topics: [" + topic + "]",
            "    properties:",
            "      security.protocol: SASL_PLAINTEXT",
            "      sasl.mechanism: PLAIN",
            "      sasl.jaas.config: ${env:KAFKA_JAAS}",
            ""));
    return file;
  }

  @Test
  void aConsumerRunsThroughSaslAndATlsRedisWithAPassword(@TempDir Path dir) throws Exception {
    String topic = "secured-" + System.nanoTime();
    KAFKA.broker().createTopics(2, topic, topic + "-dlt");
    JsonRecords.produce(KAFKA.broker().bootstrapServers(), topic, "S", 20, 2);
    RecordingHandler.EFFECTS.clear();
    try (RedisServer redis = RedisServer.custom().tls(true).password("redis-pass").start()) {
      Map<String, String> env =
          Map.of("REDIS_PASSWORD", "redis-pass", "KAFKA_JAAS", jaas(KafkaBroker.SASL_PASSWORD));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (SigloLauncher.Running running =
          SigloLauncher.start(
              LauncherConfig.load(config(dir, topic, redis), env),
              new PrintStream(out, true, StandardCharsets.UTF_8))) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> RecordingHandler.EFFECTS.size() == 20 && !running.termination().isDone());
      }
      assertThat(RecordingHandler.EFFECTS.values())
          .allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
      String summary = out.toString(StandardCharsets.UTF_8);
      assertThat(summary)
          .contains("siglo: starting the consumer of " + dir.resolve("secured.yaml"))
          .containsPattern(
              "store +redis at 127\\.0\\.0\\.1:" + redis.port() + ", TLS, password \\*\\*\\*\\*")
          .containsPattern(
              "kafka properties +sasl\\.jaas\\.config=\\*\\*\\*\\*, sasl\\.mechanism=PLAIN,"
                  + " security\\.protocol=SASL_PLAINTEXT")
          .containsPattern("broker +kafka at " + KAFKA.broker().saslBootstrapServers())
          .containsPattern("dead letters +" + topic + "-dlt")
          .contains("json-pointer:/id, namespace secured")
          .doesNotContain("redis-pass")
          .doesNotContain(KafkaBroker.SASL_PASSWORD);
    }
  }

  @Test
  void credentialsTheBrokerRefusesStopTheStartNamingTheKey(@TempDir Path dir) throws Exception {
    String topic = "refused-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (RedisServer redis = RedisServer.custom().tls(true).password("redis-pass").start()) {
      Map<String, String> env =
          Map.of("REDIS_PASSWORD", "redis-pass", "KAFKA_JAAS", jaas("not-the-password"));
      assertThatThrownBy(
              () ->
                  SigloLauncher.start(
                      LauncherConfig.load(config(dir, topic, redis), env),
                      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining(
              "siglo.kafka.properties.sasl.jaas.config: the broker refused the credentials")
          .hasMessageNotContaining("not-the-password");
    }
  }
}
