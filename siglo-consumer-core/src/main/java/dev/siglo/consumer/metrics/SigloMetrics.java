package dev.siglo.consumer.metrics;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.store.IdempotencyStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;

/**
 * Micrometer metrics of a consumer, fed by its events (add it as a listener) and by a timed store
 * ({@link #timed(IdempotencyStore)}):
 *
 * <ul>
 *   <li>{@value #MESSAGES} (counter), tags {@code outcome} ({@code processed}, {@code duplicate},
 *       {@code declined}, {@code retried}, {@code dead_lettered}, {@code conflict}), {@code system}
 *       and {@code destination} (topic or queue);
 *   <li>{@value #HANDLER} (timer) of handler runs, tags {@code system} and {@code destination};
 *   <li>{@value #STORE} (timer) of store operations, tags {@code operation} and {@code outcome}
 *       ({@code ok} or {@code error}).
 * </ul>
 *
 * Keys and payload values are never tags. Thread-safe; needs {@code io.micrometer:micrometer-core}
 * on the class path.
 */
public final class SigloMetrics implements SigloEventListener {
  /** Messages by outcome. */
  public static final String MESSAGES = "siglo.messages";

  /** Handler run time. */
  public static final String HANDLER = "siglo.handler";

  /** Store operation time. */
  public static final String STORE = "siglo.store";

  private final MeterRegistry registry;

  private SigloMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * @param registry where meters are registered
   * @return the metrics listener
   */
  public static SigloMetrics of(MeterRegistry registry) {
    return new SigloMetrics(Objects.requireNonNull(registry, "registry"));
  }

  /**
   * @param store a store
   * @return the store with every operation timed in this registry
   */
  public IdempotencyStore timed(IdempotencyStore store) {
    return new TimedIdempotencyStore(store, registry);
  }

  @Override
  public void onEvent(SigloEvent event) {
    String outcome;
    if (event instanceof SigloEvent.Processed p) {
      outcome = "processed";
      Timer.builder(HANDLER)
          .tag("system", event.message().source().system())
          .tag("destination", event.message().source().destination())
          .register(registry)
          .record(p.handlerTime());
    } else if (event instanceof SigloEvent.Duplicate) {
      outcome = "duplicate";
    } else if (event instanceof SigloEvent.Declined) {
      outcome = "declined";
    } else if (event instanceof SigloEvent.Retried) {
      outcome = "retried";
    } else if (event instanceof SigloEvent.Conflict) {
      outcome = "conflict";
    } else {
      outcome = "dead_lettered";
    }
    Counter.builder(MESSAGES)
        .tag("outcome", outcome)
        .tag("system", event.message().source().system())
        .tag("destination", event.message().source().destination())
        .register(registry)
        .increment();
  }
}
