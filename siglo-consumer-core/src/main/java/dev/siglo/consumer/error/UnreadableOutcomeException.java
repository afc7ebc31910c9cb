package dev.siglo.consumer.error;

/**
 * A stored outcome (or a cached result inside one) that cannot be decoded: a failure of Siglo's own
 * bookkeeping, not of the message. The engine never caches a decline for it: the claim is released
 * and the message is dead-lettered as {@code UNPROCESSABLE} while the record stays unreadable, so a
 * redelivery runs normally once the record is repaired or expired. Store codecs throw it from
 * {@code decode}.
 */
public class UnreadableOutcomeException extends OutcomeEncodingException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what cannot be read, naming the key but never a payload or credential
   */
  public UnreadableOutcomeException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what cannot be read, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public UnreadableOutcomeException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * @param failure a failure, or {@code null}
   * @return whether an unreadable stored outcome is in its cause chain (16 levels at most)
   */
  public static boolean isIn(Throwable failure) {
    return findCause(failure, UnreadableOutcomeException.class) != null;
  }
}
