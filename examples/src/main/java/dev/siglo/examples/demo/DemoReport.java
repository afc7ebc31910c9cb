package dev.siglo.examples.demo;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.examples.payments.Charge;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Counts what the consumer did (from its events) and checks exactly-once from the gateway's own
 * ledger. Thread-safe.
 */
public final class DemoReport implements SigloEventListener {
  final AtomicInteger received = new AtomicInteger();
  final AtomicInteger processed = new AtomicInteger();
  final AtomicInteger duplicates = new AtomicInteger();
  final AtomicInteger declined = new AtomicInteger();
  final AtomicInteger declinesReplayed = new AtomicInteger();
  final AtomicInteger retries = new AtomicInteger();
  final AtomicInteger deadLettered = new AtomicInteger();

  @Override
  public void onEvent(SigloEvent event) {
    if (event instanceof SigloEvent.Processed) {
      received.incrementAndGet();
      processed.incrementAndGet();
    } else if (event instanceof SigloEvent.Duplicate) {
      received.incrementAndGet();
      duplicates.incrementAndGet();
    } else if (event instanceof SigloEvent.Declined d) {
      received.incrementAndGet();
      (d.replayed() ? declinesReplayed : declined).incrementAndGet();
    } else if (event instanceof SigloEvent.Retried) {
      retries.incrementAndGet();
    } else if (event instanceof SigloEvent.DeadLettered) {
      received.incrementAndGet();
      deadLettered.incrementAndGet();
    }
  }

  /**
   * The check, from the gateway's ledger: every order whose card is accepted charged exactly once,
   * every declined one never.
   *
   * @param orders all order ids
   * @param declinedOrders orders whose card is declined
   * @param ledger the gateway's charges
   * @return whether it holds
   */
  public static boolean exactlyOnce(
      List<String> orders, Set<String> declinedOrders, List<Charge> ledger) {
    Map<String, Long> charges =
        ledger.stream().collect(Collectors.groupingBy(Charge::orderId, Collectors.counting()));
    for (String order : orders) {
      long expected = declinedOrders.contains(order) ? 0 : 1;
      if (charges.getOrDefault(order, 0L) != expected) {
        return false;
      }
    }
    return charges.keySet().stream().allMatch(orders::contains);
  }

  String line() {
    return String.format(
        "received %d | charged %d | duplicates suppressed %d | declined %d (replayed %d) | retries %d | dead-lettered %d",
        received.get(),
        processed.get(),
        duplicates.get(),
        declined.get(),
        declinesReplayed.get(),
        retries.get(),
        deadLettered.get());
  }

  static Map<String, Long> count(List<String> values) {
    return values.stream()
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }
}
