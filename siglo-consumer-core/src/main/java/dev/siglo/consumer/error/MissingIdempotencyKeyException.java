package dev.siglo.consumer.error;

/**
 * A message with no idempotency key where the key extractor looked (or whose extractor failed).
 * Permanent: with the default {@link dev.siglo.consumer.key.MissingKeyPolicy#REJECT} the message is
 * dead-lettered with this reason.
 */
public class MissingIdempotencyKeyException extends PermanentException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message where the key was looked for
   */
  public MissingIdempotencyKeyException(String message) {
    super(message);
  }

  /**
   * @param message where the key was looked for
   * @param cause why the extractor failed
   */
  public MissingIdempotencyKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
