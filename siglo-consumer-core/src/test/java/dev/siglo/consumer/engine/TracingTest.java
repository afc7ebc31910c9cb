package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TracingTest {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String PRODUCER_SPAN = "00f067aa0ba902b7";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(spans))
                  .build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();

  @AfterEach
  void close() {
    otel.close();
  }

  private MessageProcessor processor(boolean link) {
    AtomicInteger attempts = new AtomicInteger();
    return MessageProcessor.of(
        MessageProcessorConfig.builder(
                PayloadDecoder.utf8(),
                (String body, HandlerContext ctx) -> {
                  if (attempts.incrementAndGet() == 1) {
                    throw new TransientException("gateway timeout");
                  }
                  ctx.run(
                      Step.<String, String>of("charge", String.class, b -> "ch_1")
                          .idempotent(b -> b),
                      body);
                  ctx.run(
                      Step.<String, String>of("receipt", String.class, b -> "r_1")
                          .idempotent(b -> b),
                      body);
                  var own = otel.getTracer("app").spanBuilder("POST /receipts").startSpan();
                  own.end();
                  return null;
                })
            .store(InMemoryIdempotencyStore.of())
            .retry(
                RetryConfig.custom()
                    .maxAttempts(3)
                    .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
                    .build())
            .tracing(otel, link)
            .build());
  }

  private static Message message() {
    return Message.builder("orders-0@7", new MessageSource("kafka", "orders", 0, 7))
        .payload("secret-payload".getBytes(StandardCharsets.UTF_8))
        .header("idempotency-key", "order-1234")
        .header("traceparent", "00-" + TRACE + "-" + PRODUCER_SPAN + "-01")
        .build();
  }

  private SpanData only(String name) {
    List<SpanData> found =
        spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(found).as(name).hasSize(1);
    return found.get(0);
  }

  @Test
  void aMessageSpanParentedOnTheProducerWithAttemptsStepsStoreCallsAndTheHandlersOwnSpan() {
    processor(false).process(message());

    SpanData consumer = only("orders process");
    assertThat(consumer.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(consumer.getTraceId()).isEqualTo(TRACE);
    assertThat(consumer.getParentSpanId()).isEqualTo(PRODUCER_SPAN);
    assertThat(consumer.getAttributes().asMap())
        .containsEntry(
            io.opentelemetry.api.common.AttributeKey.stringKey("messaging.system"), "kafka")
        .containsEntry(
            io.opentelemetry.api.common.AttributeKey.stringKey("messaging.destination.name"),
            "orders")
        .containsEntry(OtelTracing.OUTCOME, "processed")
        .containsEntry(OtelTracing.DUPLICATE, false);
    List<SpanData> attempts =
        spans.getFinishedSpanItems().stream()
            .filter(s -> s.getName().equals("siglo.handle"))
            .toList();
    assertThat(attempts).hasSize(2);
    assertThat(attempts)
        .allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(consumer.getSpanId()));
    assertThat(attempts.get(0).getStatus().getStatusCode())
        .as("the retried attempt")
        .isEqualTo(StatusCode.ERROR);
    assertThat(attempts.get(1).getAttributes().get(OtelTracing.ATTEMPT)).isEqualTo(2L);
    SpanData second = attempts.get(1);
    assertThat(only("siglo.step charge").getParentSpanId()).isEqualTo(second.getSpanId());
    assertThat(only("siglo.step receipt").getParentSpanId()).isEqualTo(second.getSpanId());
    assertThat(only("POST /receipts").getParentSpanId())
        .as("the handler's own span nests under its attempt")
        .isEqualTo(second.getSpanId());
    assertThat(
            spans.getFinishedSpanItems().stream()
                .filter(s -> s.getName().equals("siglo.store claim"))
                .map(SpanData::getParentSpanId))
        .contains(consumer.getSpanId());
    assertThat(spans.getFinishedSpanItems())
        .as("never the key or the payload")
        .allSatisfy(
            s ->
                assertThat(s.getAttributes().asMap().values().toString())
                    .doesNotContain("order-1234")
                    .doesNotContain("secret-payload"));
  }

  @Test
  void aDuplicateIsMarkedAndTheLinkModeStartsATraceOfItsOwn() {
    MessageProcessor p = processor(true);
    p.process(message());
    spans.reset();
    p.process(message());
    SpanData duplicate = only("orders process");
    assertThat(duplicate.getAttributes().get(OtelTracing.OUTCOME)).isEqualTo("duplicate");
    assertThat(duplicate.getAttributes().get(OtelTracing.DUPLICATE)).isTrue();
    assertThat(duplicate.getTraceId()).isNotEqualTo(TRACE);
    assertThat(duplicate.getLinks())
        .singleElement()
        .satisfies(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(PRODUCER_SPAN));
  }

  @Test
  void anSqsMessageWithoutTraceparentIsParentedOnItsXrayTraceHeader() {
    processor(false)
        .process(
            Message.builder("m-1", MessageSource.of("sqs", "payments"))
                .payload("x".getBytes(StandardCharsets.UTF_8))
                .header("idempotency-key", "k-1")
                .systemAttribute(
                    "AWSTraceHeader",
                    "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
                .build());
    SpanData consumer = only("payments process");
    assertThat(consumer.getTraceId()).isEqualTo("5759e988bd862e3fe1be46a994272793");
    assertThat(consumer.getParentSpanId()).isEqualTo("53995c3f42cd8ad8");
  }
}
