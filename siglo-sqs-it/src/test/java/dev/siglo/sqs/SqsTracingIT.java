package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.testkit.SqsServerExtension;
import dev.siglo.testkit.TestTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Messages sent with a {@code traceparent} attribute give consumer spans with that parent on
 * ElasticMQ: child spans for the handler's attempts (a retry), its two steps, its own span, and a
 * dead letter that keeps the context.
 */
class SqsTracingIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();

  private static final String DECLINE_PARENT =
      "00-" + TestTracing.TRACE_ID + "-b7ad6b7169203331-01";

  @Test
  void spansFollowTheProducersContextThroughRetriesStepsAndTheDeadLetter() {
    SqsTestSupport sqs = new SqsTestSupport(SQS.server());
    String url = sqs.queue("traced-" + System.nanoTime(), Map.of());
    String dlq = sqs.queue("traced-dlq-" + System.nanoTime(), Map.of());
    send(sqs, url, "order-1", "charge", TestTracing.TRACEPARENT);
    send(sqs, url, "order-2", "decline", DECLINE_PARENT);
    String queueName = url.substring(url.lastIndexOf('/') + 1);
    try (TestTracing tracing = new TestTracing();
        SigloSqsConsumer<String> c =
            SigloSqsConsumer.builder(PayloadDecoder.utf8(), tracing.handler())
                .client(sqs.sqs)
                .queueUrl(url)
                .waitTime(Duration.ofSeconds(1))
                .deadLetterQueue(dlq, true)
                .tracing(tracing.openTelemetry())
                .build()) {
      c.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> sqs.remaining(url) == 0);
      List<Message> dead = sqs.drain(dlq);
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).messageAttributes().get("traceparent").stringValue())
          .as("the dead letter keeps the producer's context")
          .isEqualTo(DECLINE_PARENT);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> tracing.named(queueName + " process").size() == 2);
      SpanData charged = consumerSpan(tracing, queueName, TestTracing.PRODUCER_SPAN_ID);
      assertThat(charged.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(charged.getTraceId()).isEqualTo(TestTracing.TRACE_ID);
      assertThat(charged.getAttributes().get(AttributeKey.stringKey("messaging.system")))
          .isEqualTo("aws_sqs");
      assertThat(charged.getAttributes().get(AttributeKey.stringKey("siglo.outcome")))
          .isEqualTo("processed");
      List<SpanData> handled =
          tracing.named("siglo.handle").stream()
              .filter(s -> s.getParentSpanId().equals(charged.getSpanId()))
              .toList();
      assertThat(handled).as("the failed attempt and its retry").hasSize(2);
      String retry = handled.get(1).getSpanId();
      for (String name : List.of("siglo.step charge", "siglo.step receipt", "POST /receipts")) {
        assertThat(tracing.named(name))
            .as(name)
            .singleElement()
            .satisfies(s -> assertThat(s.getParentSpanId()).isEqualTo(retry));
      }
      SpanData declined = consumerSpan(tracing, queueName, "b7ad6b7169203331");
      assertThat(tracing.named(dlq.substring(dlq.lastIndexOf('/') + 1) + " publish"))
          .as("the dead letter's publication, a child of its message's span")
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER);
                assertThat(s.getParentSpanId()).isEqualTo(declined.getSpanId());
              });
      assertThat(declined.getAttributes().get(AttributeKey.stringKey("siglo.outcome")))
          .isEqualTo("declined");
    } finally {
      sqs.sqs.close();
    }
  }

  private static SpanData consumerSpan(TestTracing tracing, String queue, String parent) {
    return tracing.named(queue + " process").stream()
        .filter(s -> s.getParentSpanId().equals(parent))
        .findFirst()
        .orElseThrow();
  }

  private static void send(SqsTestSupport sqs, String url, String key, String body, String parent) {
    sqs.sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody(body)
                .messageAttributes(
                    Map.of(
                        "idempotency-key", SqsTestSupport.text(key),
                        "traceparent", SqsTestSupport.text(parent))));
  }
}
