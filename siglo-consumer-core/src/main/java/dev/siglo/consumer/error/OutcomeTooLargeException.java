package dev.siglo.consumer.error;

/**
 * An encoded outcome over the codec's size limit. Raised at {@code complete} time; the record is
 * left unchanged (still in progress).
 */
public class OutcomeTooLargeException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public OutcomeTooLargeException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public OutcomeTooLargeException(String message, Throwable cause) {
    super(message, cause);
  }
}
