package dev.siglo.consumer.store;

import java.util.Objects;

/**
 * One entry of {@link IdempotencyStore#completeAll}: done, or the exception the single {@link
 * IdempotencyStore#complete} would have thrown (lease lost, outcome too large, invalid key), so
 * that one entry does not fail the others.
 *
 * @param request the request this entry answers
 * @param failure the exception the single completion would have thrown, or {@code null} when done
 */
public record BatchCompleteResult(CompleteRequest request, RuntimeException failure) {

  /**
   * @param request see the record component
   * @param failure see the record component
   */
  public BatchCompleteResult {
    Objects.requireNonNull(request, "request");
  }

  /**
   * @param request the request
   * @return a completed entry
   */
  public static BatchCompleteResult done(CompleteRequest request) {
    return new BatchCompleteResult(request, null);
  }

  /**
   * @param request the request
   * @param failure what the single completion would have thrown
   * @return a failed entry
   */
  public static BatchCompleteResult failed(CompleteRequest request, RuntimeException failure) {
    return new BatchCompleteResult(request, Objects.requireNonNull(failure, "failure"));
  }

  /**
   * @throws RuntimeException the failure, when this entry failed
   */
  public void throwIfFailed() {
    if (failure != null) {
      throw failure;
    }
  }
}
