package dev.siglo.consumer.store;

/** The three answers of {@link IdempotencyStore#claim(ClaimRequest)}. */
public enum ClaimStatus {
  /** The caller now holds the claim and may execute. */
  CLAIMED,
  /** The key was executed to completion; the stored outcome is returned. */
  COMPLETED,
  /** Another caller holds a live claim on the key. */
  IN_PROGRESS
}
