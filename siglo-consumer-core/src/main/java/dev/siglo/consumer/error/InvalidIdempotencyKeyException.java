package dev.siglo.consumer.error;

/**
 * An idempotency key (or namespace, version, step name) that Siglo refuses: null, blank, over the
 * length limit, or containing control or format characters. Permanent: a message carrying such a
 * key is poison and is dead-lettered with this reason. Nothing is written to the store.
 */
public class InvalidIdempotencyKeyException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public InvalidIdempotencyKeyException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public InvalidIdempotencyKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
