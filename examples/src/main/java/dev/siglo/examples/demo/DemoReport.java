package dev.siglo.examples.demo;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.examples.payments.Charge;
import dev.siglo.examples.payments.PaymentGateway;
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
   * Prints what the consumer did and the verdict.
   *
   * @param out where
   * @param gateway the gateway, for its ledger and calls
   * @param exactlyOnce the verdict ({@link #exactlyOnce})
   */
  public void print(java.io.PrintStream out, PaymentGateway gateway, boolean exactlyOnce) {
    out.println("Summary");
    out.printf("  messages received          %d%n", received.get());
    out.printf(
        "  charges executed           %d (gateway calls %d)%n",
        gateway.ledger().size(), gateway.calls());
    out.printf("  duplicates suppressed      %d%n", duplicates.get());
    out.printf("  declines cached / replayed %d / %d%n", declined.get(), declinesReplayed.get());
    out.printf("  transient retries          %d%n", retries.get());
    out.printf("  dead-lettered              %d%n", deadLettered.get());
    out.printf(
        "  every order charged exactly once (gateway ledger): %s%n", exactlyOnce ? "yes" : "NO");
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
