package dev.siglo.consumer.engine;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory store that counts claim answers per key and can be made unavailable for a number of
 * calls of one operation (a store outage seen by the engine).
 */
final class RecordingStore implements IdempotencyStore {
  private final IdempotencyStore delegate = InMemoryIdempotencyStore.of();
  private final Map<String, Map<ClaimStatus, AtomicInteger>> answers = new ConcurrentHashMap<>();
  final AtomicInteger failNextClaims = new AtomicInteger();
  final AtomicInteger failNextCompletes = new AtomicInteger();
  final AtomicInteger completeCalls = new AtomicInteger();

  /** Runs before every read (may throw, as an unavailable store would). */
  volatile Runnable onGetResult = () -> {};

  int answers(String key, ClaimStatus status) {
    AtomicInteger n = answers.getOrDefault(key, Map.of()).get(status);
    return n == null ? 0 : n.get();
  }

  int totalAnswers(ClaimStatus status) {
    return answers.values().stream()
        .mapToInt(m -> m.getOrDefault(status, new AtomicInteger()).get())
        .sum();
  }

  private static void maybeFail(AtomicInteger counter, String op) {
    if (counter.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IdempotencyStoreUnavailableException("injected outage on " + op);
    }
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    maybeFail(failNextClaims, "claim");
    ClaimResult r = delegate.claim(request);
    answers
        .computeIfAbsent(request.key(), k -> new ConcurrentHashMap<>())
        .computeIfAbsent(r.status(), s -> new AtomicInteger())
        .incrementAndGet();
    return r;
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    completeCalls.incrementAndGet();
    maybeFail(failNextCompletes, "complete");
    delegate.complete(key, token, outcome, retention);
  }

  @Override
  public void fail(String key, ClaimToken token) {
    delegate.fail(key, token);
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    return delegate.renewLease(key, token, lease);
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    onGetResult.run();
    return delegate.getResult(key);
  }

  @Override
  public void clear() {
    delegate.clear();
  }
}
