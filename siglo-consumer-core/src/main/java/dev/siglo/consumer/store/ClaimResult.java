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
   * @param deliveries the deliveries the record has counted, this one included (at least 1): claims
   *     with {@link ClaimRequest#newDelivery()}, kept across releases ({@code fail}) and takeovers
   *     until the record is completed or forgotten
   * @param takeovers how many times an abandoned claim of this record was taken over, this claim
   *     included: its holder's process died (or froze past its lease) that many times
   */
  record Claimed(
      ClaimToken token, Instant leaseExpiresAt, boolean takeover, int deliveries, int takeovers)
      implements ClaimResult {
    /**
     * Validates the components.
     *
     * @param token see the record component
     * @param leaseExpiresAt see the record component
     * @param takeover see the record component
     * @param deliveries see the record component
     * @param takeovers see the record component
     */
    public Claimed {
      Objects.requireNonNull(token, "token");
      Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
      if (deliveries < 1 || takeovers < 0) {
        throw new IllegalArgumentException(
            "deliveries must be positive and takeovers not negative: "
                + deliveries
                + ", "
                + takeovers);
      }
    }

    /**
     * A claim of a store that keeps no counts: one delivery, one takeover when it took one over.
     *
     * @param token see the record component
     * @param leaseExpiresAt see the record component
     * @param takeover see the record component
     */
    public Claimed(ClaimToken token, Instant leaseExpiresAt, boolean takeover) {
      this(token, leaseExpiresAt, takeover, 1, takeover ? 1 : 0);
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
