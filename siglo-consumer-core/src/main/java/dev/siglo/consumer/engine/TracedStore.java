package dev.siglo.consumer.engine;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InterceptedIdempotencyStore;
import java.util.function.Supplier;

/** A store whose every call is a child span of the current one ({@link OtelTracing}). */
final class TracedStore extends InterceptedIdempotencyStore {
  private final OtelTracing tracing;

  TracedStore(IdempotencyStore store, OtelTracing tracing) {
    super(store);
    this.tracing = tracing;
  }

  @Override
  protected <R> R intercept(String operation, Supplier<R> call) {
    Tracing.Span span = tracing.store(operation);
    try {
      return call.get();
    } catch (RuntimeException e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }
}
