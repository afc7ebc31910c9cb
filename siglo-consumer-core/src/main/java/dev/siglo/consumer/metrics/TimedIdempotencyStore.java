package dev.siglo.consumer.metrics;

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
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** Times every operation of a store ({@value SigloMetrics#STORE}). Thread-safe if the store is. */
final class TimedIdempotencyStore implements IdempotencyStore {
  private final IdempotencyStore store;
  private final MeterRegistry registry;

  TimedIdempotencyStore(IdempotencyStore store, MeterRegistry registry) {
    this.store = store;
    this.registry = registry;
  }

  private <T> T time(String operation, Supplier<T> call) {
    long start = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.get();
      outcome = "ok";
      return result;
    } finally {
      Timer.builder(SigloMetrics.STORE)
          .tag("operation", operation)
          .tag("outcome", outcome)
          .register(registry)
          .record(Duration.ofNanos(System.nanoTime() - start));
    }
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return time("claim", () -> store.claim(request));
  }

  @Override
  public List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    return time("claimAll", () -> store.claimAll(requests));
  }

  @Override
  public List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    return time("completeAll", () -> store.completeAll(requests));
  }

  @Override
  public boolean prefersBatches() {
    return store.prefersBatches();
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    time(
        "complete",
        () -> {
          store.complete(key, token, outcome, retention);
          return null;
        });
  }

  @Override
  public void fail(String key, ClaimToken token) {
    time(
        "fail",
        () -> {
          store.fail(key, token);
          return null;
        });
  }

  @Override
  public void forget(String key, ClaimToken token) {
    time(
        "forget",
        () -> {
          store.forget(key, token);
          return null;
        });
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return time("renewLease", () -> store.renewLease(key, token, lease));
  }

  @Override
  public List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    return time("renewAll", () -> store.renewAll(requests));
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    return time("getResult", () -> store.getResult(key));
  }

  @Override
  public Optional<dev.siglo.consumer.store.StoredRecord> inspect(String key) {
    return store.inspect(key);
  }

  @Override
  public dev.siglo.consumer.store.StoredRecord.Removal remove(String key) {
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
}
