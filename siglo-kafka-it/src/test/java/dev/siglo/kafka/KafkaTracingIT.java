package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.TestTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records produced with a {@code traceparent} give consumer spans with that parent on a real
 * broker: child spans for the handler's attempts (a retry), its two steps, its own span, and a dead
 * letter that keeps the context.
 */
class KafkaTracingIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  private static final String DECLINE_PARENT =
      "00-" + TestTracing.TRACE_ID + "-b7ad6b7169203331-01";

  @Test
  void spansFollowTheProducersContextThroughRetriesStepsAndTheDeadLetter() throws Exception {
    String topic = "traced-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic, topic + "-dlt");
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.broker().bootstrapServers()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      p.send(record(topic, "order-1", "charge", TestTracing.TRACEPARENT));
      p.send(record(topic, "order-2", "decline", DECLINE_PARENT));
    }
    try (TestTracing tracing = new TestTracing();
        KafkaTestSupport kafka = new KafkaTestSupport(KAFKA.broker());
        SigloKafkaConsumer<String> c =
            SigloKafkaConsumer.builder(PayloadDecoder.utf8(), tracing.handler())
                .bootstrapServers(KAFKA.broker().bootstrapServers())
                .groupId(topic)
                .topics(topic)
                .deadLetterDeclines(true)
                .tracing(tracing.openTelemetry())
                .build()) {
      c.start();
      kafka.awaitCommittedToEnd(topic, topic, 1);
      List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(topic + "-dlt", 1);
      assertThat(
              new String(
                  dead.get(0).headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8))
          .as("the dead letter keeps the producer's context")
          .isEqualTo(DECLINE_PARENT);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> tracing.named(topic + " process").size() == 2);
      SpanData charged = consumerSpan(tracing, topic, TestTracing.PRODUCER_SPAN_ID);
      assertThat(charged.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(charged.getTraceId()).isEqualTo(TestTracing.TRACE_ID);
      assertThat(charged.getAttributes().get(AttributeKey.stringKey("siglo.outcome")))
          .isEqualTo("processed");
      assertThat(
              charged
                  .getAttributes()
                  .get(AttributeKey.stringKey("messaging.destination.partition.id")))
          .isEqualTo("0");
      List<SpanData> handled =
          tracing.named("siglo.handle").stream()
              .filter(s -> s.getParentSpanId().equals(charged.getSpanId()))
              .toList();
      assertThat(handled).as("the failed attempt and its retry").hasSize(2);
      String retry = handled.get(1).getSpanId();
      assertThat(tracing.named("siglo.step charge"))
          .singleElement()
          .satisfies(s -> assertThat(s.getParentSpanId()).isEqualTo(retry));
      assertThat(tracing.named("siglo.step receipt"))
          .singleElement()
          .satisfies(s -> assertThat(s.getParentSpanId()).isEqualTo(retry));
      assertThat(tracing.named("POST /receipts"))
          .singleElement()
          .satisfies(s -> assertThat(s.getParentSpanId()).isEqualTo(retry));
      SpanData declined = consumerSpan(tracing, topic, "b7ad6b7169203331");
      assertThat(tracing.named(topic + "-dlt" + " publish"))
          .as("the dead letter's publication, a child of its message's span")
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER);
                assertThat(s.getParentSpanId()).isEqualTo(declined.getSpanId());
              });
      assertThat(declined.getAttributes().get(AttributeKey.stringKey("siglo.outcome")))
          .isEqualTo("declined");
    }
  }

  private static SpanData consumerSpan(TestTracing tracing, String topic, String parent) {
    return tracing.named(topic + " process").stream()
        .filter(s -> s.getParentSpanId().equals(parent))
        .findFirst()
        .orElseThrow();
  }

  private static ProducerRecord<byte[], byte[]> record(
      String topic, String key, String value, String traceparent) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(topic, null, null, value.getBytes(StandardCharsets.UTF_8));
    r.headers().add("idempotency-key", key.getBytes(StandardCharsets.UTF_8));
    r.headers().add("traceparent", traceparent.getBytes(StandardCharsets.UTF_8));
    return r;
  }
}
