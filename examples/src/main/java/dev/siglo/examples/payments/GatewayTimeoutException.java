package dev.siglo.examples.payments;

import dev.siglo.consumer.error.TransientException;

/** The gateway did not answer in time: transient, the claim is released and the charge retried. */
public class GatewayTimeoutException extends TransientException {
  private static final long serialVersionUID = 1L;

  /**
   * @param orderId the order whose charge timed out
   */
  public GatewayTimeoutException(String orderId) {
    super("payment gateway timed out charging order " + orderId);
  }
}
