package dev.siglo.consumer.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store that hands every data operation (claims, completions, releases, renewals, reads) to
 * {@link #intercept} around the call to the store it wraps, for decorators that time or trace them;
 * the operator's and housekeeping calls ({@code inspect}, {@code remove}, {@code clear}, {@code
 * checkConnection}, {@code close}) go straight through. Thread-safe if the store and the
 * interceptor are.
 */
public abstract class InterceptedIdempotencyStore implements IdempotencyStore {
  /** The wrapped store. */
  protected final IdempotencyStore store;

  /**
   * @param store the store to wrap
   */
  protected InterceptedIdempotencyStore(IdempotencyStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * Runs one operation.
   *
   * @param operation its name ({@code claim}, {@code completeAll}, ...)
   * @param call the call to the wrapped store
   * @param <R> its result
   * @return the call's result
   */
  protected abstract <R> R intercept(String operation, Supplier<R> call);

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return intercept("claim", () -> store.claim(request));
  }

  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    return intercept("claimAll", () -> store.claimAll(requests));
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    intercept(
        "complete",
        () -> {
          store.complete(key, token, outcome, retention);
          return null;
        });
  }

  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    return intercept("completeAll", () -> store.completeAll(requests));
  }

  @Override
  public boolean prefersBatches() {
    return store.prefersBatches();
  }

  @Override
  public void fail(String key, ClaimToken token) {
    intercept(
        "fail",
        () -> {
          store.fail(key, token);
          return null;
        });
  }

  @Override
  public void forget(String key, ClaimToken token) {
    intercept(
        "forget",
        () -> {
          store.forget(key, token);
          return null;
        });
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return intercept("renewLease", () -> store.renewLease(key, token, lease));
  }

  @Override
  public List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    return intercept("renewAll", () -> store.renewAll(requests));
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    return intercept("getResult", () -> store.getResult(key));
  }

  @Override
  public void checkConnection() {
    store.checkConnection();
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
  public void clear() {
    store.clear();
  }

  @Override
  public void close() {
    store.close();
  }
}
