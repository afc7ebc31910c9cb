package dev.siglo.consumer.store;

import dev.siglo.consumer.support.Durations;
import java.time.Duration;

/**
 * One claim: the (built) key, the payload fingerprint, the lease, and whether it starts a new
 * delivery of its message.
 *
 * @param key the full idempotency key, as built by {@code IdempotencyKeys}; validated by the store
 * @param fingerprint SHA-256 (hex) of the payload or of the fields the user names, or {@code null}
 *     to skip the key-reuse check
 * @param lease how long the claim blocks other claimants before it counts as abandoned; positive
 * @param newDelivery whether a successful claim counts one more delivery on the record ({@code
 *     false} for the in-process retries of one delivery)
 */
public record ClaimRequest(String key, String fingerprint, Duration lease, boolean newDelivery) {

  /**
   * Validates the lease. Keys are validated by the store, which reports them as bad input.
   *
   * @param key see the record component
   * @param fingerprint see the record component
   * @param lease see the record component
   * @param newDelivery see the record component
   */
  public ClaimRequest {
    Durations.requirePositive(lease, "lease");
  }

  /**
   * A claim that starts a new delivery.
   *
   * @param key see the record component
   * @param fingerprint see the record component
   * @param lease see the record component
   */
  public ClaimRequest(String key, String fingerprint, Duration lease) {
    this(key, fingerprint, lease, true);
  }
}
