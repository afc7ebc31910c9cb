package dev.siglo.consumer;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How each message of a batch ended, as a {@link BatchMessageHandler} reports it: a success with
 * the result to cache for duplicates, or a failure that Siglo classifies like a thrown exception (a
 * {@link dev.siglo.consumer.error.PermanentException} is that message's cached decline, a transient
 * one retries that message). An item not mentioned succeeded with a {@code null} result, so a
 * handler that only reports what failed (like SQS's partial batch responses) is written naturally.
 * Immutable once built.
 */
public final class BatchResult {
  private static final BatchResult ALL_SUCCEEDED = new BatchResult(Map.of());

  private final Map<BatchItem<?>, ItemResult> results;

  private BatchResult(Map<BatchItem<?>, ItemResult> results) {
    this.results = results;
  }

  /**
   * @return a result in which every item succeeded with a {@code null} result
   */
  public static BatchResult allSucceeded() {
    return ALL_SUCCEEDED;
  }

  /**
   * @return a builder with no item reported yet
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * @param item an item of the batch
   * @return what the handler reported for it ({@code Success(null)} when nothing)
   */
  public ItemResult resultOf(BatchItem<?> item) {
    ItemResult r = results.get(item);
    return r != null ? r : ItemResult.Success.NULL;
  }

  /**
   * @return how many items were reported explicitly
   */
  public int reported() {
    return results.size();
  }

  /**
   * @param item an item
   * @return whether the result reports it explicitly
   */
  public boolean reports(BatchItem<?> item) {
    return results.containsKey(item);
  }

  /** What one item ended with. */
  public sealed interface ItemResult permits ItemResult.Success, ItemResult.Failure {
    /**
     * The message succeeded.
     *
     * @param value the result cached for duplicates (encoded as JSON), may be {@code null}
     */
    record Success(Object value) implements ItemResult {
      static final Success NULL = new Success(null);
    }

    /**
     * The message failed; classified like an exception its handler threw.
     *
     * @param cause the failure
     */
    record Failure(Exception cause) implements ItemResult {
      /**
       * @param cause see the record component; not {@code null}
       */
      public Failure {
        Objects.requireNonNull(cause, "cause");
      }
    }
  }

  /** Builds a {@link BatchResult}. Not thread-safe. */
  public static final class Builder {
    private final Map<BatchItem<?>, ItemResult> results = new IdentityHashMap<>();

    private Builder() {}

    /**
     * @param item an item of the batch
     * @param value its result, cached for duplicates; may be {@code null}
     * @return this builder
     * @throws IllegalArgumentException when the item was already reported
     */
    public Builder success(BatchItem<?> item, Object value) {
      return put(item, value == null ? ItemResult.Success.NULL : new ItemResult.Success(value));
    }

    /**
     * @param item an item of the batch
     * @param cause why it failed: permanent (cached as its decline) or transient (retried), as the
     *     consumer's classifier says
     * @return this builder
     * @throws IllegalArgumentException when the item was already reported
     */
    public Builder failure(BatchItem<?> item, Exception cause) {
      return put(item, new ItemResult.Failure(cause));
    }

    private Builder put(BatchItem<?> item, ItemResult result) {
      Objects.requireNonNull(item, "item");
      if (results.putIfAbsent(item, result) != null) {
        throw new IllegalArgumentException(item + " was already reported");
      }
      return this;
    }

    /**
     * @return the result
     */
    public BatchResult build() {
      return results.isEmpty() ? ALL_SUCCEEDED : new BatchResult(new IdentityHashMap<>(results));
    }
  }
}
