package dev.siglo.consumer.store;

import java.util.Objects;

/**
 * One entry of {@link IdempotencyStore#claimAll(java.util.List)}: the answer the single {@code
 * claim} would have given, or the exception it would have thrown (key reuse, invalid key), so that
 * one bad key does not fail the whole batch.
 *
 * @param request the request this entry answers
 * @param result the claim answer, or {@code null} when {@code failure} is set
 * @param failure the exception the single claim would have thrown, or {@code null}
 */
public record BatchClaimResult(ClaimRequest request, ClaimResult result, RuntimeException failure) {

  /**
   * Checks that exactly one of result and failure is set.
   *
   * @param request see the record component
   * @param result see the record component
   * @param failure see the record component
   */
  public BatchClaimResult {
    Objects.requireNonNull(request, "request");
    if ((result == null) == (failure == null)) {
      throw new IllegalArgumentException("exactly one of result and failure must be set");
    }
  }

  /**
   * @param request the request
   * @param result its answer
   * @return an answered entry
   */
  public static BatchClaimResult of(ClaimRequest request, ClaimResult result) {
    return new BatchClaimResult(request, result, null);
  }

  /**
   * @param request the request
   * @param failure what the single claim would have thrown
   * @return a failed entry
   */
  public static BatchClaimResult failed(ClaimRequest request, RuntimeException failure) {
    return new BatchClaimResult(request, null, failure);
  }

  /**
   * @return the answer
   * @throws RuntimeException the failure, when this entry failed
   */
  public ClaimResult resultOrThrow() {
    if (failure != null) {
      throw failure;
    }
    return result;
  }
}
