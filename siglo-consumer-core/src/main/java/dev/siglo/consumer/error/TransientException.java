package dev.siglo.consumer.error;

/**
 * Base class for failures that may succeed when retried: timeouts, connection resets, an
 * unavailable dependency. Users may extend it; the default {@code ErrorClassifier} classifies every
 * subclass as transient, so the claim is released and the message is retried (in process, then by
 * redelivery), and past the maximum number of deliveries it is dead-lettered without caching a
 * decline.
 */
public class TransientException extends SigloException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates a transient failure.
   *
   * @param message what failed
   */
  public TransientException(String message) {
    super(message);
  }

  /**
   * Creates a transient failure with a cause.
   *
   * @param message what failed
   * @param cause the underlying failure, may be {@code null}
   */
  public TransientException(String message, Throwable cause) {
    super(message, cause);
  }
}
