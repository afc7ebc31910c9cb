package dev.siglo.consumer.error;

import java.util.Map;

/**
 * Base class for failures that retrying cannot fix: business declines (card declined, account not
 * found, invalid currency) and poison input. Users may extend it; the default {@code
 * ErrorClassifier} classifies every subclass as permanent, so its outcome is cached as a decline
 * and a redelivered duplicate gets that decline without running the handler again.
 */
public class PermanentException extends SigloException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates a permanent failure.
   *
   * @param message what was declined and why
   */
  public PermanentException(String message) {
    super(message);
  }

  /**
   * Creates a permanent failure with a cause.
   *
   * @param message what was declined and why
   * @param cause the underlying failure, may be {@code null}
   */
  public PermanentException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Attributes stored with the cached decline (for example a decline code the payment gateway
   * returned). Override to add some; they must be small strings and never secrets.
   *
   * @return the attributes; empty by default
   */
  public Map<String, String> declineAttributes() {
    return Map.of();
  }
}
