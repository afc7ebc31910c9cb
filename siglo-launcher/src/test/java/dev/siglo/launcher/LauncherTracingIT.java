package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.TestTracing;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code siglo.tracing=parent} traces with GlobalOpenTelemetry, as under the Java agent. */
class LauncherTracingIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @Test
  void theLauncherTracesWithTheGlobalOpenTelemetry(@TempDir Path dir) throws Exception {
    String topic = "launch-traced-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(topic, "{\"id\":\"T1\"}".getBytes(StandardCharsets.UTF_8));
      r.headers().add("traceparent", TestTracing.TRACEPARENT.getBytes(StandardCharsets.UTF_8));
      p.send(r);
    }
    Path file = dir.resolve("traced.properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "siglo.handler=" + RecordingHandler.class.getName(),
            "siglo.key.source=json-pointer:/id",
            "siglo.tracing=parent",
            "siglo.kafka.bootstrap-servers=" + KAFKA.broker().bootstrapServers(),
            "siglo.kafka.group-id=" + topic,
            "siglo.kafka.topics=" + topic,
            ""));
    RecordingHandler.EFFECTS.clear();
    GlobalOpenTelemetry.resetForTest();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (TestTracing tracing = new TestTracing()) {
      GlobalOpenTelemetry.set(tracing.openTelemetry());
      try (SigloLauncher.Running running =
          SigloLauncher.start(
              LauncherConfig.load(file, Map.of()),
              new PrintStream(out, true, StandardCharsets.UTF_8))) {
        await().atMost(Duration.ofSeconds(60)).until(() -> RecordingHandler.EFFECTS.size() == 1);
        assertThat(running.termination()).isNotDone();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> tracing.named(topic + " process").size() == 1);
      }
      SpanData span = tracing.named(topic + " process").get(0);
      assertThat(span.getTraceId()).isEqualTo(TestTracing.TRACE_ID);
      assertThat(span.getParentSpanId()).isEqualTo(TestTracing.PRODUCER_SPAN_ID);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .containsPattern("tracing +GlobalOpenTelemetry, parented on the producer's traceparent");
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }
}
