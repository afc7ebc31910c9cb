package dev.siglo.consumer.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A store whose single {@link #claim} and {@link #complete} calls, made by many workers at the same
 * time, go to the wrapped store as {@link IdempotencyStore#claimAll} and {@link
 * IdempotencyStore#completeAll} batches ({@link GroupCommit}): one round trip for all of them.
 * Every caller gets exactly the answer or exception the single call would have given. Other
 * operations pass through. Used by the runtimes when the store {@linkplain
 * IdempotencyStore#prefersBatches prefers batches}. Thread-safe.
 */
public final class CoalescingIdempotencyStore implements IdempotencyStore {
  /** The largest batch sent in one call. */
  public static final int MAX_BATCH = 128;

  /**
   * The longest a caller waits for another caller's batch before it fails with {@link
   * dev.siglo.consumer.error.IdempotencyStoreUnavailableException} (transient).
   */
  public static final Duration MAX_WAIT = Duration.ofSeconds(30);

  private final IdempotencyStore store;
  private final GroupCommit<ClaimRequest, BatchClaimResult> claims;
  private final GroupCommit<CompleteRequest, BatchCompleteResult> completions;

  /**
   * @param store the store to send batches to
   */
  public CoalescingIdempotencyStore(IdempotencyStore store) {
    this.store = store;
    this.claims = new GroupCommit<>(store::claimAll, ClaimRequest::key, MAX_BATCH, MAX_WAIT);
    this.completions =
        new GroupCommit<>(store::completeAll, CompleteRequest::key, MAX_BATCH, MAX_WAIT);
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return claims.submit(request).resultOrThrow();
  }

  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    return store.claimAll(requests);
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    completions.submit(new CompleteRequest(key, token, outcome, retention)).throwIfFailed();
  }

  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    return store.completeAll(requests);
  }

  @Override
  public void fail(String key, ClaimToken token) {
    store.fail(key, token);
  }

  @Override
  public void forget(String key, ClaimToken token) {
    store.forget(key, token);
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return store.renewLease(key, token, lease);
  }

  @Override
  public List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    return store.renewAll(requests);
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    return store.getResult(key);
  }

  @Override
  public Optional<StoredRecord> inspect(String key) {
    return store.inspect(key);
  }

  @Override
  public StoredRecord.Removal remove(String key) {
    return store.remove(key);
  }

  @Override
  public void checkConnection() {
    store.checkConnection();
  }

  @Override
  public void clear() {
    store.clear();
  }

  @Override
  public void close() {
    store.close();
  }

  @Override
  public String toString() {
    return "coalescing " + store;
  }
}
