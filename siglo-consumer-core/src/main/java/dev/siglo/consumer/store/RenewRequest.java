package dev.siglo.consumer.store;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * One lease renewal: the key, the token that holds its claim, and the new lease from now.
 *
 * @param key the full idempotency key; validated by the store
 * @param token the token of the claim
 * @param lease the new lease from now; positive
 */
public record RenewRequest(String key, ClaimToken token, Duration lease) {

  /**
   * Validates the token and the lease.
   *
   * @param key see the record component
   * @param token see the record component
   * @param lease see the record component
   */
  public RenewRequest {
    Objects.requireNonNull(token, "token");
    Durations.requirePositive(lease, "lease");
  }
}
