package dev.siglo.consumer.error;

/**
 * A result (or stored outcome bytes) that the codec cannot encode or decode. The record is left
 * unchanged.
 */
public class OutcomeEncodingException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public OutcomeEncodingException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public OutcomeEncodingException(String message, Throwable cause) {
    super(message, cause);
  }
}
