package dev.siglo.consumer.error;

/**
 * The caller's claim is no longer held by its token: its lease expired and another caller took it
 * over, or it was released or completed. The store changed nothing. Transient: a retry finds the
 * record completed by the new owner (and settles on it) or claims it afresh.
 */
public class IdempotencyLeaseLostException extends TransientException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public IdempotencyLeaseLostException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public IdempotencyLeaseLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
