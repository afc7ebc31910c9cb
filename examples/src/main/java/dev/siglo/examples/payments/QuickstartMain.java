package dev.siglo.examples.payments;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.KeyExtractors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The engine on its own, no broker: delivers a stream of orders with concurrent duplicates,
 * declined cards and gateway timeouts to the {@link ChargeOrderHandler} on the in-memory store, and
 * checks from the gateway's own ledger that every order was charged exactly once. Exits 0 only when
 * that check holds.
 */
public final class QuickstartMain {
  private QuickstartMain() {}

  /**
   * What a run did.
   *
   * @param delivered messages delivered (duplicates included)
   * @param dispositions count of each disposition kind
   * @param retries in-process retries of transient failures
   * @param gatewayCalls calls the gateway received
   * @param chargesPerOrder successful charges per order, from the gateway's ledger
   * @param receiptsPerOrder receipts sent per order
   * @param declinedOrders orders whose card is declined
   * @param orders all order ids
   */
  public record Summary(
      int delivered,
      Map<String, Integer> dispositions,
      int retries,
      int gatewayCalls,
      Map<String, Long> chargesPerOrder,
      Map<String, Long> receiptsPerOrder,
      Set<String> declinedOrders,
      List<String> orders) {

    /**
     * @return whether every accepted order was charged and receipted once and no declined one
     */
    public boolean exactlyOnce() {
      for (String order : orders) {
        long expected = declinedOrders.contains(order) ? 0 : 1;
        if (chargesPerOrder.getOrDefault(order, 0L) != expected
            || receiptsPerOrder.getOrDefault(order, 0L) != expected) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * Runs the quickstart and prints its summary.
   *
   * @param args ignored
   * @throws Exception when a worker fails
   */
  public static void main(String[] args) throws Exception {
    Summary s = run(20, 3, 8);
    System.out.println("Siglo quickstart (engine only, in-memory store)");
    System.out.printf(
        "  messages delivered        %d (%d orders x %d copies, concurrently)%n",
        s.delivered(), s.orders().size(), s.delivered() / s.orders().size());
    System.out.printf(
        "  charges executed          %d (gateway calls %d)%n",
        s.chargesPerOrder().values().stream().mapToLong(Long::longValue).sum(), s.gatewayCalls());
    System.out.printf(
        "  duplicates suppressed     %d%n", s.dispositions().getOrDefault("DUPLICATE", 0));
    System.out.printf(
        "  declines cached/replayed  %d/%d%n",
        s.dispositions().getOrDefault("DECLINED", 0),
        s.dispositions().getOrDefault("DECLINE_REPLAYED", 0));
    System.out.printf("  transient retries         %d%n", s.retries());
    System.out.printf("  redeliveries requested    %d%n", s.dispositions().getOrDefault("NACK", 0));
    System.out.printf(
        "  dead-lettered             %d%n", s.dispositions().getOrDefault("DEAD_LETTER", 0));
    System.out.printf("  every order charged exactly once: %s%n", s.exactlyOnce() ? "yes" : "NO");
    System.exit(s.exactlyOnce() ? 0 : 1);
  }

  /**
   * Delivers {@code orders} orders {@code copies} times each on {@code threads} threads.
   *
   * @param orderCount how many orders
   * @param copies deliveries of each order
   * @param threads worker threads
   * @return what happened
   * @throws Exception when a worker fails
   */
  public static Summary run(int orderCount, int copies, int threads) throws Exception {
    PaymentGateway gateway = OrderStream.gateway();
    ReceiptSender receipts = new ReceiptSender();
    AtomicInteger retries = new AtomicInteger();
    OrderStream stream = OrderStream.of(orderCount);
    List<String> orders = stream.ids();
    Set<String> declined = stream.declined();
    List<Message> deliveries = new ArrayList<>();
    for (String json : stream.json()) {
      for (int c = 0; c < copies; c++) {
        deliveries.add(
            Message.builder(
                    "orders-0@" + deliveries.size(),
                    new MessageSource("demo", "orders", 0, deliveries.size()))
                .payload(json.getBytes(StandardCharsets.UTF_8))
                .build());
      }
    }
    Collections.shuffle(deliveries, new Random(42));

    // README:start wiring
    MessageProcessor processor =
        MessageProcessor.of(
            MessageProcessorConfig.builder(
                    PayloadDecoder.json(Order.class), new ChargeOrderHandler(gateway, receipts))
                .keyExtractor(KeyExtractors.jsonPointer("/orderId"))
                .keys(IdempotencyKeys.custom().namespace("shop-eu").version("1").build())
                .classifier(
                    ErrorClassifier.custom().permanentOn(CardDeclinedException.class).build())
                .retry(
                    RetryConfig.custom()
                        .maxAttempts(3)
                        .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
                        .build())
                .listener(
                    event -> {
                      if (event instanceof SigloEvent.Retried) {
                        retries.incrementAndGet();
                      }
                    })
                .build());
    // README:end wiring

    Map<String, AtomicInteger> kinds = new java.util.concurrent.ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (Message message : deliveries) {
        futures.add(
            pool.submit(
                () -> {
                  Disposition d = processor.process(message);
                  kinds.computeIfAbsent(kind(d), k -> new AtomicInteger()).incrementAndGet();
                }));
      }
      for (Future<?> f : futures) {
        f.get(1, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    return new Summary(
        deliveries.size(),
        kinds.entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get())),
        retries.get(),
        gateway.calls(),
        gateway.ledger().stream()
            .collect(Collectors.groupingBy(Charge::orderId, Collectors.counting())),
        receipts.sent().stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting())),
        Set.copyOf(declined),
        List.copyOf(orders));
  }

  private static String kind(Disposition d) {
    if (d instanceof Disposition.Ack ack) {
      return ack.reason().name();
    }
    if (d instanceof Disposition.AckDeclined declined) {
      return declined.replayed() ? "DECLINE_REPLAYED" : "DECLINED";
    }
    return d instanceof Disposition.NackRetry ? "NACK" : "DEAD_LETTER";
  }
}
