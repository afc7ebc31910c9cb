package dev.siglo.spring.boot;

import dev.siglo.consumer.error.SigloConfigurationException;
import java.util.Objects;

/**
 * A {@code siglo.*} property that is wrong for the application: it names the property and the
 * problem, and the starter's failure analyzer turns it into Boot's start-up report ("Description:
 * ... Action: ..."). Thrown while the context starts, before any message is consumed.
 */
public final class SigloPropertyException extends SigloConfigurationException {
  private static final long serialVersionUID = 1L;

  /** The property. */
  private final String property;

  /** The problem, without the property's name. */
  private final String problem;

  /**
   * @param property the property, for example {@code siglo.consumers.payments.handler}
   * @param problem what is wrong with it
   */
  public SigloPropertyException(String property, String problem) {
    super(Objects.requireNonNull(property, "property") + ": " + problem);
    this.property = property;
    this.problem = problem;
  }

  /**
   * @return the property
   */
  public String property() {
    return property;
  }

  /**
   * @return what is wrong with it
   */
  public String problem() {
    return problem;
  }
}
