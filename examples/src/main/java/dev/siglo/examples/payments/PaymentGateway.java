package dev.siglo.examples.payments;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated payment gateway that keeps its own ledger of charges, so an example can check "every
 * order charged exactly once" from the gateway's side, not from Siglo's logs. Cards listed as
 * declined are declined; cards listed as flaky time out on their first attempt. Thread-safe.
 */
public final class PaymentGateway {
  private final Set<String> declinedCards;
  private final Set<String> flakyCards;
  private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  private final List<Charge> ledger = new CopyOnWriteArrayList<>();
  private final AtomicInteger calls = new AtomicInteger();

  /**
   * @param declinedCards cards the gateway declines
   * @param flakyCards cards whose first charge times out
   */
  public PaymentGateway(Set<String> declinedCards, Set<String> flakyCards) {
    this.declinedCards = Set.copyOf(declinedCards);
    this.flakyCards = Set.copyOf(flakyCards);
  }

  /**
   * Charges an order.
   *
   * @param order the order
   * @return the charge
   * @throws CardDeclinedException when the card is declined
   * @throws GatewayTimeoutException on the first attempt of a flaky card
   */
  public Charge charge(Order order) {
    calls.incrementAndGet();
    int attempt =
        attempts.computeIfAbsent(order.orderId(), k -> new AtomicInteger()).incrementAndGet();
    if (declinedCards.contains(order.card())) {
      throw new CardDeclinedException(order.orderId(), "insufficient_funds");
    }
    if (flakyCards.contains(order.card()) && attempt == 1) {
      throw new GatewayTimeoutException(order.orderId());
    }
    Charge charge =
        new Charge(
            "ch_" + order.orderId() + "_" + ledger.size(), order.orderId(), order.amountCents());
    ledger.add(charge);
    return charge;
  }

  /**
   * @return every successful charge, in order
   */
  public List<Charge> ledger() {
    return List.copyOf(ledger);
  }

  /**
   * @return how many times the gateway was called (declines and timeouts included)
   */
  public int calls() {
    return calls.get();
  }
}
