package dev.siglo.consumer.metrics;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InterceptedIdempotencyStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/** Times every operation of a store ({@value SigloMetrics#STORE}). Thread-safe if the store is. */
final class TimedIdempotencyStore extends InterceptedIdempotencyStore {
  private final MeterRegistry registry;

  TimedIdempotencyStore(IdempotencyStore store, MeterRegistry registry) {
    super(store);
    this.registry = registry;
  }

  @Override
  protected <T> T intercept(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.get();
      outcome = "ok";
      return result;
    } finally {
      Timer.builder(SigloMetrics.STORE)
          .tag("operation", operation)
          .tag("outcome", outcome)
          .register(registry)
          .record(Duration.ofNanos(System.nanoTime() - start));
    }
  }
}
