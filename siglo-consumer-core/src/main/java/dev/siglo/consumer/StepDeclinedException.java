package dev.siglo.consumer;

import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.store.Outcome;
import java.util.Map;
import java.util.Objects;

/**
 * Thrown by a step whose key holds a cached decline: the step declined permanently before and is
 * not run again. Permanent; the message records the same decline (same error type).
 */
public class StepDeclinedException extends PermanentException {
  private static final long serialVersionUID = 1L;

  private final transient Outcome.Declined decline;

  /**
   * @param stepName the step
   * @param decline the cached decline
   */
  public StepDeclinedException(String stepName, Outcome.Declined decline) {
    super(
        "step '"
            + stepName
            + "' declined before: "
            + Objects.requireNonNull(decline, "decline").errorType()
            + ": "
            + decline.message());
    this.decline = decline;
  }

  /**
   * @return the cached decline
   */
  public Outcome.Declined decline() {
    return decline;
  }

  @Override
  public Map<String, String> declineAttributes() {
    return decline.attributes();
  }
}
