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
}
