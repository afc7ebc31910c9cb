package dev.siglo.testkit;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;

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

  @Override
  public void close() {
    sdk.close();
  }
}
