package dev.siglo.consumer.error;

/**
 * Root of every exception Siglo throws.
 *
 * <p>The hierarchy is small and its split is visible in the names: {@link PermanentException}
 * (retrying cannot help: business declines, poison messages, key reuse) and {@link
 * TransientException} (retrying may help: timeouts, an unavailable store, a conflict). {@link
 * SigloConfigurationException} reports bad configuration at start-up.
 */
public class SigloException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message what went wrong, never a payload or a credential
   */
  public SigloException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message what went wrong, never a payload or a credential
   * @param cause the underlying failure, may be {@code null}
   */
  public SigloException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The first exception of a type in a failure's cause chain (16 levels at most, so a cyclic chain
   * ends).
   *
   * @param failure a failure, or {@code null}
   * @param type the type to look for
   * @param <X> the type
   * @return the first such exception, or {@code null}
   */
  public static <X extends Throwable> X findCause(Throwable failure, Class<X> type) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 16; t = t.getCause(), depth++) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
