package dev.siglo.examples.payments;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.Step;
import java.time.Duration;

// README:start handler
/** Charges an order, then sends its receipt; each side effect is an idempotent step. */
public final class ChargeOrderHandler implements MessageHandler<Order> {
  private final Step<Order, Charge> chargeCard;
  private final Step<Charge, Void> sendReceipt;

  /**
   * @param gateway the payment gateway
   * @param receipts the receipt sender
   */
  public ChargeOrderHandler(PaymentGateway gateway, ReceiptSender receipts) {
    IdempotencyConfig stepOptions =
        IdempotencyConfig.custom()
            .ttl(Duration.ofDays(1))
            .settleTimeout(Duration.ofSeconds(3))
            .pollInterval(Duration.ofMillis(50))
            .build();
    this.chargeCard =
        Step.of("chargeCard", Charge.class, gateway::charge)
            .idempotent(order -> "charge:" + order.orderId(), stepOptions);
    this.sendReceipt =
        Step.of(
                "sendReceipt",
                Void.class,
                (Charge charge) -> {
                  receipts.send(charge);
                  return null;
                })
            .idempotent(charge -> "receipt:" + charge.chargeId(), stepOptions);
  }

  @Override
  public Object handle(Order order, HandlerContext context) throws Exception {
    Charge charge = context.run(chargeCard, order); // cached after the first success
    context.run(sendReceipt, charge); // a retry after a failed receipt does not charge again
    return charge;
  }
}
// README:end handler
