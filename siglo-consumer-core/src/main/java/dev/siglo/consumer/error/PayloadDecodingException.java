package dev.siglo.consumer.error;

/**
 * A message payload that the configured {@link dev.siglo.consumer.PayloadDecoder} could not decode:
 * a poison message. Permanent: the message is dead-lettered with this reason and never handed to
 * the handler.
 */
public class PayloadDecodingException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates a decoding failure.
   *
   * @param message what could not be decoded (never the payload itself)
   * @param cause the decoder's exception
   */
  public PayloadDecodingException(String message, Throwable cause) {
    super(message, cause);
  }
}
