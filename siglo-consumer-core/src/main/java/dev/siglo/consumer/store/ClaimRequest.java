package dev.siglo.consumer.store;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;

/**
 * One claim: the (built) key, the payload fingerprint, and the lease.
 *
 * @param key the full idempotency key, as built by {@code IdempotencyKeys}; validated by the store
 * @param fingerprint SHA-256 (hex) of the payload or of the fields the user names, or {@code null}
 *     to skip the key-reuse check
 * @param lease how long the claim blocks other claimants before it counts as abandoned; positive
 */
public record ClaimRequest(String key, String fingerprint, Duration lease) {

  /**
   * Validates the lease. Keys are validated by the store, which reports them as bad input.
   *
   * @param key see the record component
   * @param fingerprint see the record component
   * @param lease see the record component
   */
  public ClaimRequest {
    Durations.requirePositive(lease, "lease");
  }
}
