package dev.siglo.spring.boot.autoconfigure;

import dev.siglo.spring.boot.SigloConsumer;
import java.util.Locale;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * One consumer's health: {@code UP} while it runs and its store answers (paused or not: a pause is
 * Siglo waiting out an outage, and its reasons are in the details), {@code DOWN} when it stopped on
 * a failure or its store does not answer, {@code OUT_OF_SERVICE} before it started and after it was
 * closed. Details: broker, destination, state, running, paused (reason and since), store.
 */
public final class SigloHealthIndicator implements HealthIndicator {
  private final SigloConsumer consumer;

  /**
   * @param consumer the consumer
   */
  public SigloHealthIndicator(SigloConsumer consumer) {
    this.consumer = consumer;
  }

  @Override
  public Health health() {
    Health.Builder h =
        new Health.Builder()
            .withDetail("broker", consumer.broker().name().toLowerCase(Locale.ROOT))
            .withDetail("destination", consumer.destination())
            .withDetail("state", consumer.state().name().toLowerCase(Locale.ROOT))
            .withDetail("running", consumer.isRunning())
            .withDetail("paused", consumer.pauses());
    boolean storeUp;
    try {
      consumer.store().checkConnection();
      h.withDetail("store", "reachable");
      storeUp = true;
    } catch (RuntimeException e) {
      h.withDetail("store", "unreachable: " + e.getMessage());
      storeUp = false;
    }
    if (consumer.failure().isPresent()) {
      return h.down(consumer.failure().get()).build();
    }
    if (!consumer.isRunning()) {
      return h.outOfService().build();
    }
    return (storeUp ? h.up() : h.down()).build();
  }
}
