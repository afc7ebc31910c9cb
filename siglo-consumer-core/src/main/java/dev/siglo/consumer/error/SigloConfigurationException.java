package dev.siglo.consumer.error;

/**
 * Bad configuration, reported when it is built or loaded (at start-up), never later on the message
 * path. The message names the setting (and, when loaded from a file, the file and key) and the
 * problem.
 */
public class SigloConfigurationException extends SigloException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates a configuration error.
   *
   * @param message the setting and what is wrong with it
   */
  public SigloConfigurationException(String message) {
    super(message);
  }

  /**
   * Creates a configuration error with a cause.
   *
   * @param message the setting and what is wrong with it
   * @param cause the underlying failure
   */
  public SigloConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The configuration error in a failure's cause chain, if any: a runtime stops on it instead of
   * retrying what cannot succeed.
   *
   * @param failure a failure, or {@code null}
   * @return the first configuration error in its cause chain (16 levels at most), or {@code null}
   */
  public static SigloConfigurationException in(Throwable failure) {
    return findCause(failure, SigloConfigurationException.class);
  }
}
