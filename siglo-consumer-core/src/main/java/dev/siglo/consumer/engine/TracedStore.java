package dev.siglo.consumer.engine;

import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.BatchRenewResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.RenewRequest;
import dev.siglo.consumer.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** A store whose every call is a child span of the current one ({@link OtelTracing}). */
final class TracedStore implements IdempotencyStore {
  private final IdempotencyStore store;
  private final OtelTracing tracing;

  TracedStore(IdempotencyStore store, OtelTracing tracing) {
    this.store = store;
    this.tracing = tracing;
  }

  private <R> R span(String operation, Supplier<R> call) {
    Tracing.Span span = tracing.store(operation);
    try {
      return call.get();
    } catch (RuntimeException e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return span("claim", () -> store.claim(request));
  }

  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    return span("claimAll", () -> store.claimAll(requests));
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    span(
        "complete",
        () -> {
          store.complete(key, token, outcome, retention);
          return null;
        });
  }

  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    return span("completeAll", () -> store.completeAll(requests));
  }

  @Override
  public boolean prefersBatches() {
    return store.prefersBatches();
  }

  @Override
  public void fail(String key, ClaimToken token) {
    span(
        "fail",
        () -> {
          store.fail(key, token);
          return null;
        });
  }

  @Override
  public void forget(String key, ClaimToken token) {
    span(
        "forget",
        () -> {
          store.forget(key, token);
          return null;
        });
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return span("renewLease", () -> store.renewLease(key, token, lease));
  }

  @Override
  public List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    return span("renewAll", () -> store.renewAll(requests));
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    return span("getResult", () -> store.getResult(key));
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
