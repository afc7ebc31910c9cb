package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.testkit.FreePorts;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.RedisServer;
import dev.siglo.testkit.SqsServerExtension;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each dependency the launcher needs, missing or refusing, stops {@code siglo run} in its own JVM
 * before the first message: exit code 2, within the start-up check's default time limit, and one
 * line naming the key and the problem (no stack trace, no hang).
 */
class LauncherStartupIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();

  @TempDir Path dir;

  /** What a launcher process printed and how it ended. */
  record Exit(int code, String output) {
    /** The one line that says why it could not start. */
    String reason() {
      List<String> lines =
          output.lines().filter(l -> l.startsWith("siglo: cannot start: ")).toList();
      assertThat(lines).as(output).hasSize(1);
      assertThat(output).as("no stack trace").doesNotContain("\tat ");
      return lines.get(0);
    }
  }

  private Exit run(String file, String text, Map<String, String> env) throws Exception {
    Path config = dir.resolve(file);
    Files.writeString(config, text);
    SigloProcess.Result r = SigloProcess.run(dir, env, "", "run", config.toString());
    return new Exit(r.code(), r.output());
  }

  private static String kafka(String topic) {
    return String.join(
        "\n",
        "siglo.handler=" + RecordingHandler.class.getName(),
        "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
        "siglo.kafka.group-id=startup",
        "siglo.kafka.topics=" + topic,
        "");
  }

  private static String sqs(String queue) {
    return String.join(
        "\n",
        "siglo.broker=sqs",
        "siglo.handler=" + RecordingHandler.class.getName(),
        "siglo.sqs.endpoint=" + SQS.server().endpoint(),
        "siglo.sqs.region=us-east-1",
        "siglo.sqs.queue=" + queue,
        "");
  }

  private static final Map<String, String> AWS_KEYS =
      Map.of("AWS_ACCESS_KEY_ID", "test", "AWS_SECRET_ACCESS_KEY", "test");

  @Test
  void aYamlKeyWrittenTwiceStops() throws Exception {
    Exit exit =
        run(
            "consumer.yaml",
            String.join(
                "\n",
                "siglo:",
                "  handler: " + RecordingHandler.class.getName(),
                "  store: redis",
                "  store:",
                "    redis:",
                "      url: redis://127.0.0.1:6379",
                ""),
            Map.of());
    assertThat(exit.code()).isEqualTo(2);
    assertThat(exit.reason())
        .endsWith("consumer.yaml: siglo.store: set twice, on line 3 and on line 4 (remove one)");
  }

  @Test
  void aRedisPasswordTheServerRefusesStops() throws Exception {
    String topic = "startup-redis-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (RedisServer redis = RedisServer.custom().password("the-right-one").start()) {
      Exit exit =
          run(
              "consumer.properties",
              kafka(topic)
                  + "siglo.store.type=redis\nsiglo.store.redis.url=redis://127.0.0.1:"
                  + redis.port()
                  + "\nsiglo.store.redis.password=${env:REDIS_PASSWORD}\n",
              Map.of("REDIS_PASSWORD", "a-wrong-one"));
      assertThat(exit.code()).isEqualTo(2);
      assertThat(exit.reason())
          .contains(
              "siglo.store.redis: Redis at 127.0.0.1:"
                  + redis.port()
                  + " rejected the credentials of user 'default'");
      assertThat(exit.output()).doesNotContain("a-wrong-one").doesNotContain("the-right-one");
    }
  }

  @Test
  void anSqsConsumerWithoutAwsCredentialsStops() throws Exception {
    String queue = "startup-nocreds-" + System.nanoTime();
    SQS.server().createQueue(queue, Map.of());
    Map<String, String> env = new HashMap<>();
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    env.put("AWS_SHARED_CREDENTIALS_FILE", dir.resolve("no-credentials").toString());
    env.put("AWS_CONFIG_FILE", dir.resolve("no-config").toString());
    Exit exit = run("consumer.properties", sqs(queue), env);
    assertThat(exit.code()).isEqualTo(2);
    assertThat(exit.reason()).contains("siglo.sqs: no AWS credentials (set AWS_ACCESS_KEY_ID");
  }

  @Test
  void aMetricsPortInUseStops() throws Exception {
    String topic = "startup-port-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Exit exit =
          run(
              "consumer.properties",
              kafka(topic)
                  + "siglo.metrics.bind-address=127.0.0.1\nsiglo.metrics.prometheus-port="
                  + taken.getLocalPort()
                  + "\n",
              Map.of());
      assertThat(exit.code()).isEqualTo(2);
      assertThat(exit.reason())
          .endsWith(
              "siglo.metrics.prometheus-port: cannot listen on 127.0.0.1:"
                  + taken.getLocalPort()
                  + " (the port is in use)");
    }
  }

  @Test
  void aMissingTopicOrDeadLetterTopicStops() throws Exception {
    String topic = "startup-topic-" + System.nanoTime();
    Exit noTopic = run("consumer.properties", kafka(topic), Map.of());
    assertThat(noTopic.code()).isEqualTo(2);
    assertThat(noTopic.reason())
        .endsWith(
            "siglo.kafka.topics: the topic '"
                + topic
                + "' does not exist on the broker (create it first)");
    KAFKA.broker().createTopics(1, topic);
    Exit noDeadLetters = run("consumer.properties", kafka(topic), Map.of());
    assertThat(noDeadLetters.code()).isEqualTo(2);
    assertThat(noDeadLetters.reason())
        .endsWith(
            "siglo.kafka.dead-letter-suffix: the dead-letter topic '"
                + topic
                + "-dlt' does not exist on the broker (create it, or set"
                + " siglo.kafka.create-dead-letter-topics=true)");
  }

  @Test
  void aBrokerThatDoesNotAnswerStops() throws Exception {
    int nobody = FreePorts.loopback();
    Exit exit =
        run(
            "consumer.properties",
            kafka("t").replace(KAFKA.broker().bootstrapServers(), "127.0.0.1:" + nobody),
            Map.of());
    assertThat(exit.code()).isEqualTo(2);
    assertThat(exit.reason())
        .endsWith(
            "siglo.kafka.bootstrap-servers: a Kafka broker at 127.0.0.1:"
                + nobody
                + " did not answer within PT10S");
  }

  @Test
  void aMissingQueueOrDeadLetterQueueStops() throws Exception {
    String queue = "startup-queue-" + System.nanoTime();
    Exit noQueue = run("consumer.properties", sqs(queue), AWS_KEYS);
    assertThat(noQueue.code()).isEqualTo(2);
    assertThat(noQueue.reason())
        .endsWith("siglo.sqs.queue: the queue '" + queue + "' does not exist");
    SQS.server().createQueue(queue, Map.of());
    Exit noDlq =
        run(
            "consumer.properties",
            sqs(queue) + "siglo.sqs.dead-letter-queue=" + queue + "-dlq\n",
            AWS_KEYS);
    assertThat(noDlq.code()).isEqualTo(2);
    assertThat(noDlq.reason())
        .endsWith("siglo.sqs.dead-letter-queue: the queue '" + queue + "-dlq' does not exist");
  }
}
