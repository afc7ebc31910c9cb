package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.store.IdempotencyStore;
import java.util.List;

/**
 * The engine's tracing points: one span per message, one per handler attempt, one per step, one per
 * store call. {@link #NONE} when no tracer is configured; {@link OtelTracing} (OpenTelemetry,
 * loaded only when configured) otherwise.
 */
interface Tracing {
  /** A started span: record a failure or an outcome, then close. */
  interface Span {
    /** Records a failure on the span. */
    void fail(Throwable failure);

    /** Records the message's outcome (message spans only). */
    void outcome(Disposition disposition);

    /** Records each message's outcome (batch spans only). */
    default void outcomes(List<Message> messages, List<Disposition> dispositions) {}

    /** Ends the span and restores the context before it. */
    void close();
  }

  Span NO_SPAN =
      new Span() {
        @Override
        public void fail(Throwable failure) {}

        @Override
        public void outcome(Disposition disposition) {}

        @Override
        public void close() {}
      };

  Tracing NONE =
      new Tracing() {
        @Override
        public Span message(Message message) {
          return NO_SPAN;
        }

        @Override
        public Span batch(List<Message> messages) {
          return NO_SPAN;
        }

        @Override
        public Span handler(int attempt) {
          return NO_SPAN;
        }

        @Override
        public Span step(String name) {
          return NO_SPAN;
        }

        @Override
        public Span deadLetter(String destination) {
          return NO_SPAN;
        }

        @Override
        public IdempotencyStore traced(IdempotencyStore store) {
          return store;
        }
      };

  /** The message's consumer span, current until closed. */
  Span message(Message message);

  /**
   * A batch's consumer span, current until closed: linked to each message's producer context, with
   * no parent (a batch belongs to many traces).
   */
  Span batch(List<Message> messages);

  /** One handler attempt, a child of the current span, current until closed. */
  Span handler(int attempt);

  /** One step, a child of the current span, current until closed. */
  Span step(String name);

  /** The publication of a dead letter, a PRODUCER child of the current span. */
  Span deadLetter(String destination);

  /** The store with a child span per call. */
  IdempotencyStore traced(IdempotencyStore store);
}
