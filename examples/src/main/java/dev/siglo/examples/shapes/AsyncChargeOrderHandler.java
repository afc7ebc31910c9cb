package dev.siglo.examples.shapes;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.Step;
import dev.siglo.examples.payments.Charge;
import dev.siglo.examples.payments.Order;
import dev.siglo.examples.payments.PaymentGateway;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

// README:start async-handler
/**
 * Charges an order on the gateway client's own threads: Siglo holds the order's claim until the
 * returned stage completes, and records the charge (or caches the decline) only then.
 */
public final class AsyncChargeOrderHandler implements AsyncMessageHandler<Order> {
  private final Step<Order, Charge> chargeCard;
  private final Executor gatewayThreads;

  /**
   * @param gateway the payment gateway
   * @param gatewayThreads where the gateway calls run (a non-blocking client's own threads)
   */
  public AsyncChargeOrderHandler(PaymentGateway gateway, Executor gatewayThreads) {
    this.chargeCard =
        Step.of("chargeCard", Charge.class, gateway::charge)
            .idempotent(order -> "charge:" + order.orderId());
    this.gatewayThreads = gatewayThreads;
  }

  @Override
  public CompletionStage<Charge> handle(Order order, HandlerContext context) {
    // a step blocks the thread that runs it, and must run before the stage completes
    return CompletableFuture.supplyAsync(() -> charge(order, context), gatewayThreads);
  }

  private Charge charge(Order order, HandlerContext context) {
    try {
      return context.run(chargeCard, order);
    } catch (Exception e) {
      throw new CompletionException(e); // Siglo classifies the cause, as for a blocking handler
    }
  }
}
// README:end async-handler
