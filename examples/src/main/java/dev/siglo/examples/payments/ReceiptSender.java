package dev.siglo.examples.payments;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A simulated e-mail sender that records the receipts it sent. Thread-safe. */
public final class ReceiptSender {
  private final List<String> sent = new CopyOnWriteArrayList<>();

  /**
   * @param charge the charge to send a receipt for
   */
  public void send(Charge charge) {
    sent.add(charge.orderId());
  }

  /**
   * @return the orders a receipt was sent for, in order
   */
  public List<String> sent() {
    return List.copyOf(sent);
  }
}
