package dev.siglo.consumer.store;

import java.time.Instant;
import java.util.Objects;

/**
 * The answer of a claim: exactly one of {@link Claimed}, {@link Completed} or {@link InProgress}.
 */
public sealed interface ClaimResult
    permits ClaimResult.Claimed, ClaimResult.Completed, ClaimResult.InProgress {

  /**
   * @return the status this answer stands for
   */
  ClaimStatus status();

  /**
   * The caller holds the claim.
   *
   * @param token the owner token to pass to {@code complete}, {@code fail} and {@code renewLease}
   * @param leaseExpiresAt when the lease ends unless renewed
   * @param takeover whether an abandoned (lease-expired) claim was taken over
   */
  record Claimed(ClaimToken token, Instant leaseExpiresAt, boolean takeover)
      implements ClaimResult {
    /**
     * Validates the components.
     *
     * @param token see the record component
     * @param leaseExpiresAt see the record component
     * @param takeover see the record component
     */
    public Claimed {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
    }

    @Override
    public ClaimStatus status() {
      return ClaimStatus.CLAIMED;
    }
  }

  /**
   * The key was completed before.
   *
   * @param outcome the stored outcome
   */
  record Completed(Outcome outcome) implements ClaimResult {
    /**
     * Validates the outcome.
     *
     * @param outcome see the record component
     */
    public Completed {
      Objects.requireNonNull(outcome, "outcome");
    }

    @Override
    public ClaimStatus status() {
      return ClaimStatus.COMPLETED;
    }
  }

  /**
   * Another caller holds a live claim.
   *
   * @param leaseExpiresAt when that claim's lease ends unless renewed
   */
  record InProgress(Instant leaseExpiresAt) implements ClaimResult {
    /**
     * Validates the components.
     *
     * @param leaseExpiresAt see the record component
     */
    public InProgress {
      Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
    }

    @Override
    public ClaimStatus status() {
      return ClaimStatus.IN_PROGRESS;
    }
  }
}
