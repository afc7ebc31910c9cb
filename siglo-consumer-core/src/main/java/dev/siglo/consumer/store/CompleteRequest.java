package dev.siglo.consumer.store;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * One completion of {@link IdempotencyStore#completeAll}: what {@link IdempotencyStore#complete}
 * takes.
 *
 * @param key the full idempotency key; validated by the store
 * @param token the token of the claim
 * @param outcome the outcome
 * @param retention how long the outcome is kept; positive
 */
public record CompleteRequest(String key, ClaimToken token, Outcome outcome, Duration retention) {

  /**
   * Validates the components. Keys are validated by the store, which reports them as bad input.
   *
   * @param key see the record component
   * @param token see the record component
   * @param outcome see the record component
   * @param retention see the record component
   */
  public CompleteRequest {
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(outcome, "outcome");
    Durations.requirePositive(retention, "retention");
  }
}
