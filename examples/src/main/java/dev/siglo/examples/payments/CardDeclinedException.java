package dev.siglo.examples.payments;

import dev.siglo.consumer.error.PermanentException;
import java.util.Map;

/** The gateway declined the card: a permanent business error, cached and never retried. */
public class CardDeclinedException extends PermanentException {
  private static final long serialVersionUID = 1L;
  private final String declineCode;

  /**
   * @param orderId the order
   * @param declineCode the gateway's decline code
   */
  public CardDeclinedException(String orderId, String declineCode) {
    super("card declined for order " + orderId + ": " + declineCode);
    this.declineCode = declineCode;
  }

  @Override
  public Map<String, String> declineAttributes() {
    return Map.of("declineCode", declineCode);
  }
}
