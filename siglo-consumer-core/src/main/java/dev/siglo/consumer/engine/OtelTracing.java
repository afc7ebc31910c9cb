package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.store.IdempotencyStore;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * OpenTelemetry tracing: a CONSUMER span per message, parented on (or, by choice, linked to) the
 * context its {@code traceparent} header or attribute carries, with the standard {@code
 * messaging.*} attributes and {@code siglo.outcome}, {@code siglo.attempt}, {@code siglo.duplicate}
 * (never the key or the payload); INTERNAL child spans for each handler attempt, step and store
 * call. The handler runs with its attempt's span current, so the user's own spans nest under it.
 */
final class OtelTracing implements Tracing {
  static final String INSTRUMENTATION = "dev.siglo.consumer";
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("siglo.outcome");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("siglo.attempt");
  static final AttributeKey<Boolean> DUPLICATE = AttributeKey.booleanKey("siglo.duplicate");
  static final String AWS_TRACE_HEADER = "AWSTraceHeader";

  private static final TextMapGetter<Message> HEADERS =
      new TextMapGetter<>() {
        @Override
        public String get(Message m, String key) {
          if (m == null) {
            return null;
          }
          String v = m.headers().get(key);
          if (v == null) {
            for (Map.Entry<String, String> e : m.headers().entrySet()) {
              if (e.getKey().toLowerCase(Locale.ROOT).equals(key)) {
                return e.getValue();
              }
            }
          }
          return v;
        }
      };

  private final OpenTelemetry otel;
  private final Tracer tracer;
  private final boolean link;

  OtelTracing(OpenTelemetry otel, boolean link) {
    this.otel = otel;
    this.tracer = otel.getTracer(INSTRUMENTATION);
    this.link = link;
  }

  @Override
  public Tracing.Span message(Message message) {
    Context producer = producerContext(message);
    MessageSource source = message.source();
    SpanBuilder b =
        tracer
            .spanBuilder(source.destination() + " process")
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute("messaging.system", source.system().equals("sqs") ? "aws_sqs" : "kafka")
            .setAttribute("messaging.destination.name", source.destination())
            .setAttribute("messaging.operation.type", "process")
            .setAttribute("messaging.operation.name", "process")
            .setAttribute("messaging.message.id", message.id())
            .setAttribute(ATTEMPT, (long) message.deliveryAttempt());
    if (source.partition() >= 0) {
      b.setAttribute("messaging.destination.partition.id", String.valueOf(source.partition()));
      b.setAttribute("messaging.kafka.offset", source.offset());
    }
    io.opentelemetry.api.trace.SpanContext parent =
        io.opentelemetry.api.trace.Span.fromContext(producer).getSpanContext();
    if (link && parent.isValid()) {
      b.setNoParent().addLink(parent);
    } else {
      b.setParent(producer);
    }
    return new Started(b.startSpan());
  }

  @Override
  public Tracing.Span batch(List<Message> messages) {
    MessageSource source = messages.get(0).source();
    boolean oneDestination =
        messages.stream().allMatch(m -> m.source().destination().equals(source.destination()));
    SpanBuilder b =
        tracer
            .spanBuilder(oneDestination ? source.destination() + " process" : "process")
            .setSpanKind(SpanKind.CONSUMER)
            .setNoParent()
            .setAttribute("messaging.system", source.system().equals("sqs") ? "aws_sqs" : "kafka")
            .setAttribute("messaging.operation.type", "process")
            .setAttribute("messaging.operation.name", "process")
            .setAttribute("messaging.batch.message_count", (long) messages.size());
    if (oneDestination) {
      b.setAttribute("messaging.destination.name", source.destination());
    }
    for (Message m : messages) {
      io.opentelemetry.api.trace.SpanContext producer =
          io.opentelemetry.api.trace.Span.fromContext(producerContext(m)).getSpanContext();
      if (producer.isValid()) {
        b.addLink(producer);
      }
    }
    return new Started(b.startSpan());
  }

  /**
   * The producer's context: what the configured propagators find in the headers ({@code
   * traceparent}), else an SQS message's {@code AWSTraceHeader} (X-Ray: {@code Root=1-<8 hex>-<24
   * hex>;Parent=<16 hex>;Sampled=<0|1>}).
   */
  private Context producerContext(Message message) {
    Context extracted =
        otel.getPropagators().getTextMapPropagator().extract(Context.root(), message, HEADERS);
    if (io.opentelemetry.api.trace.Span.fromContext(extracted).getSpanContext().isValid()) {
      return extracted;
    }
    String xray = message.systemAttributes().get(AWS_TRACE_HEADER);
    if (xray == null) {
      return extracted;
    }
    String root = null;
    String parent = null;
    boolean sampled = false;
    for (String part : xray.split(";")) {
      String[] kv = part.trim().split("=", 2);
      if (kv.length == 2) {
        switch (kv[0]) {
          case "Root" -> root = kv[1];
          case "Parent" -> parent = kv[1];
          case "Sampled" -> sampled = kv[1].equals("1");
          default -> {}
        }
      }
    }
    if (root == null || parent == null || !root.startsWith("1-") || root.length() != 35) {
      return extracted;
    }
    String traceId = root.substring(2, 10) + root.substring(11);
    io.opentelemetry.api.trace.SpanContext context =
        io.opentelemetry.api.trace.SpanContext.createFromRemoteParent(
            traceId,
            parent,
            sampled
                ? io.opentelemetry.api.trace.TraceFlags.getSampled()
                : io.opentelemetry.api.trace.TraceFlags.getDefault(),
            io.opentelemetry.api.trace.TraceState.getDefault());
    return context.isValid()
        ? Context.root().with(io.opentelemetry.api.trace.Span.wrap(context))
        : extracted;
  }

  @Override
  public Tracing.Span handler(int attempt) {
    return new Started(
        tracer.spanBuilder("siglo.handle").setAttribute(ATTEMPT, (long) attempt).startSpan());
  }

  @Override
  public Tracing.Span step(String name) {
    return new Started(
        tracer.spanBuilder("siglo.step " + name).setAttribute("siglo.step", name).startSpan());
  }

  @Override
  public Tracing.Span deadLetter(String destination) {
    return new Started(
        tracer
            .spanBuilder(destination + " publish")
            .setSpanKind(SpanKind.PRODUCER)
            .setAttribute("messaging.destination.name", destination)
            .setAttribute("messaging.operation.type", "send")
            .setAttribute("messaging.operation.name", "publish")
            .startSpan());
  }

  @Override
  public IdempotencyStore traced(IdempotencyStore store) {
    return new TracedStore(store, this);
  }

  /** A child span of the current one for a store operation. */
  Tracing.Span store(String operation) {
    return new Started(tracer.spanBuilder("siglo.store " + operation).startSpan());
  }

  /** A started span and the scope that made it current. */
  private static final class Started implements Tracing.Span {
    private final io.opentelemetry.api.trace.Span span;
    private final Scope scope;

    Started(io.opentelemetry.api.trace.Span span) {
      this.span = span;
      this.scope = span.makeCurrent();
    }

    @Override
    public void fail(Throwable failure) {
      span.recordException(failure);
      span.setStatus(StatusCode.ERROR, failure.getClass().getName());
    }

    @Override
    public void outcome(Disposition d) {
      if (d instanceof Disposition.NackRetry) {
        span.setStatus(StatusCode.ERROR, "retried");
      } else if (d instanceof Disposition.DeadLetter dead) {
        span.setStatus(StatusCode.ERROR, dead.reason().name());
      }
      span.setAttribute(OUTCOME, outcomeOf(d));
      span.setAttribute(DUPLICATE, isDuplicate(d));
    }

    /** One {@code siglo.message} event per message: its id, outcome and whether a duplicate. */
    @Override
    public void outcomes(List<Message> messages, List<Disposition> dispositions) {
      for (int i = 0; i < messages.size(); i++) {
        Disposition d = dispositions.get(i);
        span.addEvent(
            "siglo.message",
            io.opentelemetry.api.common.Attributes.of(
                AttributeKey.stringKey("messaging.message.id"),
                messages.get(i).id(),
                OUTCOME,
                outcomeOf(d),
                DUPLICATE,
                isDuplicate(d)));
      }
    }

    private static boolean isDuplicate(Disposition d) {
      return d instanceof Disposition.Ack ack && ack.reason() == Disposition.AckReason.DUPLICATE
          || d instanceof Disposition.AckDeclined declined && declined.replayed();
    }

    private static String outcomeOf(Disposition d) {
      if (d instanceof Disposition.Ack) {
        return isDuplicate(d) ? "duplicate" : "processed";
      }
      if (d instanceof Disposition.AckDeclined) {
        return isDuplicate(d) ? "decline_replayed" : "declined";
      }
      return d instanceof Disposition.NackRetry ? "retried" : "dead_lettered";
    }

    @Override
    public void close() {
      scope.close();
      span.end();
    }
  }
}
