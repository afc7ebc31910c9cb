package dev.siglo.testkit;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An OpenTelemetry SDK with W3C trace-context propagation whose finished spans a test reads ({@link
 * #spans()}); close it after the test.
 */
public final class TestTracing implements AutoCloseable {
  /** A producer's trace id, for {@link #TRACEPARENT}. */
  public static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

  /** A producer's span id, for {@link #TRACEPARENT}. */
  public static final String PRODUCER_SPAN_ID = "00f067aa0ba902b7";

  /** A {@code traceparent} value of a sampled producer span. */
  public static final String TRACEPARENT = "00-" + TRACE_ID + "-" + PRODUCER_SPAN_ID + "-01";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();

  /**
   * @return the SDK, to give to the consumer and to the handler's own instrumentation
   */
  public OpenTelemetrySdk openTelemetry() {
    return sdk;
  }

  /**
   * @return the spans finished so far
   */
  public List<SpanData> spans() {
    return exporter.getFinishedSpanItems();
  }

  /**
   * @param name a span name
   * @return the finished spans of that name
   */
  public List<SpanData> named(String name) {
    return spans().stream().filter(s -> s.getName().equals(name)).toList();
  }

  /**
   * A handler for tracing tests: it declines the payload {@code decline} (a permanent failure); any
   * other payload fails its first attempt (transient), then runs the steps {@code charge} and
   * {@code receipt} and starts and ends a span of its own, {@code POST /receipts}.
   *
   * @return the handler
   */
  public MessageHandler<String> handler() {
    AtomicInteger attempts = new AtomicInteger();
    return (String body, HandlerContext ctx) -> {
      if (body.equals("decline")) {
        throw new PermanentException("card declined");
      }
      if (attempts.incrementAndGet() == 1) {
        throw new TransientException("gateway timeout");
      }
      ctx.run(
          Step.<String, String>of("charge", String.class, b -> "ch_1").idempotent(b -> b), body);
      ctx.run(
          Step.<String, String>of("receipt", String.class, b -> "r_1").idempotent(b -> b), body);
      sdk.getTracer("app").spanBuilder("POST /receipts").startSpan().end();
      return null;
    };
  }

  @Override
  public void close() {
    sdk.close();
  }
}
