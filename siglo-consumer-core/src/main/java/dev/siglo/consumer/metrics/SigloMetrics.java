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
 *       {@code declined} (a new decline, cached), {@code decline_replayed} (a duplicate given the
 *       cached decline, the handler not run), {@code retried}, {@code dead_lettered}, {@code
 *       conflict}, {@code lease_lost}), {@code system} and {@code destination} (topic or queue);
 *   <li>{@value #HANDLER} (timer) of handler runs, tags {@code system} and {@code destination};
 *   <li>{@value #STORE} (timer) of store operations, tags {@code operation} and {@code outcome}
 *       ({@code ok} or {@code error}).
 * </ul>
 *
 * Runtimes also register {@value #IN_FLIGHT} (gauge, tags {@code system}, {@code destination}:
 * messages received and not yet finished; never receive capacity reserved by a long poll), {@value
 * #PAUSED} (gauge, same tags), for SQS {@value #RECEIVED} (messages per non-empty receive), and for
 * Kafka {@value #LAG} per partition (gauge, tags {@code topic}, {@code partition}), for Kafka share
 * groups {@value #ACKNOWLEDGEMENT_FAILURES}. Keys and payload values are never tags. Thread-safe;
 * needs {@code io.micrometer:micrometer-core} on the class path.
 */
public final class SigloMetrics implements SigloEventListener {
  /** Messages by outcome. */
  public static final String MESSAGES = "siglo.messages";

  /** Handler run time. */
  public static final String HANDLER = "siglo.handler";

  /** Store operation time. */
  public static final String STORE = "siglo.store";

  /** Messages received and not finished (gauge). */
  public static final String IN_FLIGHT = "siglo.in_flight";

  /** Messages returned per receive call that returned any (distribution summary, SQS). */
  public static final String RECEIVED = "siglo.received";

  /** Records behind the end of a partition (gauge, Kafka). */
  public static final String LAG = "siglo.lag";

  /**
   * Acknowledgements the broker refused or that were lost on the way (counter, Kafka share groups),
   * tags {@code system}, {@code destination}, {@code type} ({@code accept}, {@code release}, {@code
   * reject}, {@code renew}).
   */
  public static final String ACKNOWLEDGEMENT_FAILURES = "siglo.acknowledgement.failures";

  /**
   * Gauge: 1 while the consumer's intake is paused (store unavailable, a pause condition holds), 0
   * otherwise; tags {@code system}, {@code destination}.
   */
  public static final String PAUSED = "siglo.paused";

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

  /**
   * Registers a gauge of work in flight.
   *
   * @param system the broker system
   * @param destination the topic or queue
   * @param value read when the gauge is sampled; must be thread-safe
   */
  public void inFlight(
      String system, String destination, java.util.function.Supplier<Number> value) {
    io.micrometer.core.instrument.Gauge.builder(IN_FLIGHT, value)
        .tag("system", system)
        .tag("destination", destination)
        .register(registry);
  }

  /**
   * Registers the paused gauge of one consumer.
   *
   * @param system {@code kafka} or {@code sqs}
   * @param destination the topics or the queue
   * @param paused whether intake is paused now
   */
  public void paused(String system, String destination, java.util.function.BooleanSupplier paused) {
    io.micrometer.core.instrument.Gauge.builder(PAUSED, () -> paused.getAsBoolean() ? 1 : 0)
        .tag("system", system)
        .tag("destination", destination)
        .register(registry);
  }

  /**
   * Registers the summary of the messages each receive call returned ({@value #RECEIVED}); runtimes
   * record the calls that returned any, so its mean is the batch size a busy consumer gets.
   *
   * @param system the broker system
   * @param destination the queue
   * @return the summary to record each receive's message count in
   */
  public io.micrometer.core.instrument.DistributionSummary received(
      String system, String destination) {
    return io.micrometer.core.instrument.DistributionSummary.builder(RECEIVED)
        .tag("system", system)
        .tag("destination", destination)
        .register(registry);
  }

  /**
   * Registers the counter of failed acknowledgements ({@value #ACKNOWLEDGEMENT_FAILURES}) of one
   * type.
   *
   * @param system the broker system
   * @param destination the topics
   * @param type the acknowledgement type, lower case
   * @return the counter
   */
  public Counter acknowledgementFailures(String system, String destination, String type) {
    return Counter.builder(ACKNOWLEDGEMENT_FAILURES)
        .tag("system", system)
        .tag("destination", destination)
        .tag("type", type)
        .register(registry);
  }

  /**
   * Registers a lag gauge for one partition.
   *
   * @param topic the topic
   * @param partition the partition
   * @param value read when the gauge is sampled (records behind the end); must be thread-safe
   */
  public void lag(String topic, int partition, java.util.function.Supplier<Number> value) {
    io.micrometer.core.instrument.Gauge.builder(LAG, value)
        .tag("topic", topic)
        .tag("partition", String.valueOf(partition))
        .register(registry);
  }

  @Override
  public void onEvent(SigloEvent event) {
    if (event instanceof SigloEvent.ConsumerEvent) {
      return; // paused, resumed: the paused gauge shows them
    }
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
    } else if (event instanceof SigloEvent.Declined d) {
      outcome = d.replayed() ? "decline_replayed" : "declined";
    } else if (event instanceof SigloEvent.Retried) {
      outcome = "retried";
    } else if (event instanceof SigloEvent.Conflict) {
      outcome = "conflict";
    } else if (event instanceof SigloEvent.LeaseLost) {
      outcome = "lease_lost";
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
