package dev.siglo.consumer.spi;

import dev.siglo.consumer.StepDeclinedException;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.store.Outcome;
import java.util.Map;

/**
 * Turns a permanent failure into the {@link Outcome.Declined} that is cached, the same way for the
 * engine and for store-specific steps.
 */
public final class Declines {
  private Declines() {}

  /**
   * @param classification a permanent classification
   * @return the decline of the exception the classifier found decisive; a replayed step decline as
   *     is
   */
  public static Outcome.Declined of(Classification classification) {
    Throwable decisive = classification.decisive();
    if (decisive instanceof StepDeclinedException replay) {
      return replay.decline();
    }
    Map<String, String> attributes =
        decisive instanceof PermanentException p ? p.declineAttributes() : Map.of();
    return new Outcome.Declined(
        decisive.getClass().getName(), DeadLetters.truncate(decisive.getMessage()), attributes);
  }

  /**
   * @param classification a permanent classification
   * @param whyMinimal why the full decline could not be stored
   * @return a decline small enough for any codec
   */
  public static Outcome.Declined minimal(
      Classification classification, RuntimeException whyMinimal) {
    return new Outcome.Declined(
        classification.decisive().getClass().getName(),
        DeadLetters.truncate("(decline not stored in full: " + whyMinimal.getMessage() + ")"),
        Map.of());
  }
}
