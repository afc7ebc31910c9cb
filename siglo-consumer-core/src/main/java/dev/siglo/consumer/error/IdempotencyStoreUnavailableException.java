package dev.siglo.consumer.error;

/**
 * The idempotency store could not be reached or did not answer in time (connection refused,
 * timeout, pool exhausted, full). Transient; the cause is attached. Messages are never handled
 * without a claim: the engine fails closed and retries.
 */
public class IdempotencyStoreUnavailableException extends TransientException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public IdempotencyStoreUnavailableException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public IdempotencyStoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
