package dev.siglo.consumer.error;

/**
 * The key was claimed before with a different payload fingerprint (the same key reused for a
 * different request, as Stripe and the IETF idempotency-key draft forbid). Permanent; the stored
 * record is left unchanged.
 */
public class IdempotencyKeyReuseException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public IdempotencyKeyReuseException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public IdempotencyKeyReuseException(String message, Throwable cause) {
    super(message, cause);
  }
}
