package dev.siglo.consumer.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What {@link IdempotencyStore#renewAll} did for one request: the new lease end, or the exception
 * {@link IdempotencyStore#renewLease} would have thrown for it (typically {@code
 * IdempotencyLeaseLostException} when the token no longer holds the claim).
 *
 * @param request the request
 * @param leaseExpiresAt the new lease end, or {@code null} when the renewal failed
 * @param failure the failure, or {@code null} when renewed
 */
public record BatchRenewResult(
    RenewRequest request, Instant leaseExpiresAt, RuntimeException failure) {

  /**
   * Validates that exactly one of the lease end and the failure is given.
   *
   * @param request see the record component
   * @param leaseExpiresAt see the record component
   * @param failure see the record component
   */
  public BatchRenewResult {
    Objects.requireNonNull(request, "request");
    if ((leaseExpiresAt == null) == (failure == null)) {
      throw new IllegalArgumentException("exactly one of leaseExpiresAt and failure must be given");
    }
  }

  /**
   * @param request the request
   * @param leaseExpiresAt the new lease end
   * @return a renewed entry
   */
  public static BatchRenewResult renewed(RenewRequest request, Instant leaseExpiresAt) {
    return new BatchRenewResult(request, Objects.requireNonNull(leaseExpiresAt), null);
  }

  /**
   * @param request the request
   * @param failure why it was not renewed
   * @return a failed entry
   */
  public static BatchRenewResult failed(RenewRequest request, RuntimeException failure) {
    return new BatchRenewResult(request, null, Objects.requireNonNull(failure, "failure"));
  }

  /**
   * @return the new lease end
   * @throws RuntimeException the failure, when the renewal failed
   */
  public Instant leaseExpiresAtOrThrow() {
    if (failure != null) {
      throw failure;
    }
    return leaseExpiresAt;
  }
}
