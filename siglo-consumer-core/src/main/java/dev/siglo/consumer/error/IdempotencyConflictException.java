package dev.siglo.consumer.error;

/**
 * Another execution holds a live claim on the key and did not settle within the settle timeout.
 * Transient: the message is retried later and never lost.
 */
public class IdempotencyConflictException extends TransientException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public IdempotencyConflictException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public IdempotencyConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
