package dev.siglo.consumer.engine;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.UnreadableOutcomeException;
import dev.siglo.consumer.spi.Declines;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The atomic lifecycle of one idempotent unit (a message or a step): claim, wait-and-settle, run
 * the body (which includes its {@code onAfter} hooks), then complete with the success, complete
 * with a decline (permanent), or release the claim and rethrow (transient). Stateless and
 * thread-safe.
 */
final class IdempotentInvoker {
  private static final Logger log = LoggerFactory.getLogger(IdempotentInvoker.class);
  private static final long FIRST_COMPLETION_BACKOFF_MS = 10;
  private static final long MAX_COMPLETION_BACKOFF_MS = 1_000;

  /**
   * How long a completion waits for the outage's prober before it tries the store itself again (a
   * safety net: the prober runs as long as the outage is known).
   */
  static final Duration OUTAGE_WAIT = Duration.ofSeconds(30);

  private final IdempotencyStore store;
  private final ResultJson codec;
  private final Time time;
  private final LeaseKeeper leases;
  private final StoreOutage outage;

  IdempotentInvoker(
      IdempotencyStore store, ResultJson codec, Time time, LeaseKeeper leases, StoreOutage outage) {
    this.store = store;
    this.codec = codec;
    this.time = time;
    this.leases = leases;
    this.outage = outage;
  }

  /** The work done while holding a claim; the token is {@code null} without a claim. */
  @FunctionalInterface
  interface Body<R> {
    R run(ClaimToken token) throws Exception;
  }

  /**
   * Runs the body at most once per completed key.
   *
   * @throws Exception a transient failure of the body (claim released), or of the store; {@link
   *     IdempotencyConflictException} when an in-flight duplicate did not settle; key reuse
   */
  <R> Invocation<R> invoke(
      Message message,
      String key,
      String fingerprint,
      IdempotencyConfig options,
      ErrorClassifier classifier,
      DeliveryBudget budget,
      Body<R> body)
      throws Exception {
    ClaimRequest request =
        new ClaimRequest(key, fingerprint, options.lease(), budget.newDelivery());
    ClaimResult claim = store.claim(request);
    boolean settled = false;
    if (claim instanceof ClaimResult.InProgress) {
      claim = settle(request, options);
      settled = true;
    }
    if (claim instanceof ClaimResult.Completed completed) {
      return new Invocation.Replayed<>(completed.outcome(), settled);
    }
    ClaimToken token = ((ClaimResult.Claimed) claim).token();
    admit(key, (ClaimResult.Claimed) claim, budget, options);
    LeaseKeeper.Held held = leases.hold(message, key, token, options.lease());
    try {
      return runClaimed(request, token, options, classifier, budget, body);
    } finally {
      leases.release(held);
    }
  }

  /**
   * Tells the message's budget of its claim before its handler runs.
   *
   * @throws CrashLoopException its holders died too often: the decline is recorded, the handler
   *     must not run
   * @throws RuntimeException the budget wants it run later (alone): the claim was released
   */
  void admit(
      String key, ClaimResult.Claimed claim, DeliveryBudget budget, IdempotencyConfig options) {
    try {
      budget.claimed(claim);
    } catch (CrashLoopException e) {
      // terminal: a redelivery (the dead letter was published, its offset not yet committed when
      // another crash came) must not start the loop again, so the decline is cached
      completeRetrying(
          key,
          claim.token(),
          new Outcome.Declined(CrashLoopException.class.getSimpleName(), e.getMessage(), Map.of()),
          options.ttl());
      throw e;
    } catch (RuntimeException e) {
      release(key, claim.token()); // run later (alone): the record keeps its counts
      throw e;
    }
  }

  /**
   * Claims many keys in one store call (a batch handler's), each answered as {@link
   * IdempotencyStore#claim} would.
   */
  List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    return store.claimAll(requests);
  }

  /**
   * Completes many claims in one store call, retrying the whole call while the store is
   * unavailable, as {@link #completeRetrying} does for one.
   *
   * @return one entry per request: done, or what the single completion would have thrown
   * @throws IdempotencyStoreUnavailableException when the thread was interrupted meanwhile
   */
  List<BatchCompleteResult> completeAllRetrying(List<CompleteRequest> requests) {
    long backoff = FIRST_COMPLETION_BACKOFF_MS;
    while (true) {
      try {
        return store.completeAll(requests);
      } catch (IdempotencyStoreUnavailableException e) {
        awaitStoreAfter(e, requests.size() + " keys", backoff);
        backoff = Math.min(backoff * 2, MAX_COMPLETION_BACKOFF_MS);
      }
    }
  }

  private <R> Invocation<R> runClaimed(
      ClaimRequest request,
      ClaimToken token,
      IdempotencyConfig options,
      ErrorClassifier classifier,
      DeliveryBudget budget,
      Body<R> body)
      throws Exception {
    String key = request.key();
    R value;
    try {
      value = body.run(token);
    } catch (Exception e) {
      return onFailure(request, token, options, classifier, budget, e);
    } catch (Error e) {
      release(key, token);
      throw e;
    }
    Outcome.Success success;
    try {
      success = new Outcome.Success(codec.encode(value));
    } catch (OutcomeEncodingException e) {
      return onFailure(request, token, options, classifier, budget, e);
    }
    try {
      Outcome other = record(request, token, success, options);
      if (other != null) {
        return new Invocation.Replayed<>(other, true);
      }
    } catch (OutcomeTooLargeException e) {
      return onFailure(request, token, options, classifier, budget, e);
    }
    return new Invocation.Executed<>(value, success);
  }

  /** Runs the body without a claim (a message processed without idempotency). */
  <R> Invocation<R> invokeUnclaimed(ErrorClassifier classifier, Body<R> body) throws Exception {
    R value;
    String json;
    try {
      value = body.run(null);
      json = codec.encode(value);
    } catch (Exception e) {
      Classification c = classifier.classifyDetailed(e);
      if (c.errorClass() == ErrorClass.PERMANENT) {
        return new Invocation.DeclinedNow<>(Declines.of(c), e);
      }
      throw e;
    }
    return new Invocation.Executed<>(value, new Outcome.Success(json));
  }

  /**
   * A failure of a claimed body: a permanent one is recorded as the key's decline (or settles on
   * another holder's outcome when the claim was lost); a transient one releases the claim (forgets
   * the record when the budget says this is its last chance) and is rethrown.
   */
  <R> Invocation<R> onFailure(
      ClaimRequest request,
      ClaimToken token,
      IdempotencyConfig options,
      ErrorClassifier classifier,
      DeliveryBudget budget,
      Exception failure)
      throws Exception {
    Classification c = classifier.classifyDetailed(failure);
    if (c.errorClass() != ErrorClass.PERMANENT || UnreadableOutcomeException.isIn(failure)) {
      // transient, or Siglo could not read its own record: never a cached decline
      if (budget.lastChance(failure)) {
        forget(request.key(), token); // dead-lettered now: a replay counts afresh
      } else {
        release(request.key(), token);
      }
      throw failure;
    }
    Outcome.Declined decline = Declines.of(c);
    Outcome other;
    try {
      other = record(request, token, decline, options);
    } catch (OutcomeTooLargeException | OutcomeEncodingException e) {
      decline = Declines.minimal(c, e);
      other = record(request, token, decline, options);
    }
    if (other != null) {
      return new Invocation.Replayed<>(other, true);
    }
    return new Invocation.DeclinedNow<>(decline, failure);
  }

  /**
   * Records an outcome with the claim's token. When the claim was taken over meanwhile (this
   * process was frozen or cut off past its lease), the outcome is not recorded and the execution
   * does not take the key back: it settles on the new holder's result, which is returned. Only when
   * the new holder is gone too (the key is free again) is this execution's outcome recorded under a
   * fresh claim, since its effects ran.
   *
   * @return {@code null} when this outcome was recorded, else the outcome another holder recorded
   * @throws IdempotencyConflictException the new holder did not settle within the settle timeout
   */
  Outcome record(
      ClaimRequest request, ClaimToken token, Outcome outcome, IdempotencyConfig options) {
    try {
      completeRetrying(request.key(), token, outcome, options.ttl());
      return null;
    } catch (IdempotencyLeaseLostException lost) {
      log.warn(
          "key '{}': the claim was taken over while this execution ran; its outcome is not"
              + " recorded, it settles on the new holder's result",
          request.key());
    }
    ClaimResult now = store.claim(request);
    if (now instanceof ClaimResult.InProgress) {
      now = settle(request, options);
    }
    if (now instanceof ClaimResult.Completed completed) {
      return completed.outcome();
    }
    completeRetrying(request.key(), ((ClaimResult.Claimed) now).token(), outcome, options.ttl());
    return null;
  }

  /** The first wait of a settling duplicate; later waits double up to the poll interval. */
  static final long FIRST_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private ClaimResult settle(ClaimRequest request, IdempotencyConfig options) {
    long waitNanos = options.settleTimeout().toNanos();
    long maxPollNanos = options.pollInterval().toNanos();
    long pollNanos = Math.min(FIRST_POLL_NANOS, maxPollNanos);
    long start = time.nanoTime();
    while (true) {
      long remaining = waitNanos - (time.nanoTime() - start);
      if (remaining <= 0) {
        throw conflict(request, options.settleTimeout());
      }
      try {
        time.sleep(Duration.ofNanos(Math.min(pollNanos, remaining)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw conflict(request, Duration.ofNanos(time.nanoTime() - start));
      }
      ClaimResult claim = store.claim(request);
      if (!(claim instanceof ClaimResult.InProgress)) {
        return claim;
      }
      pollNanos = Math.min(maxPollNanos, pollNanos * 2);
    }
  }

  /** The failure of a duplicate that did not settle within {@code waited}. */
  static IdempotencyConflictException conflict(ClaimRequest request, Duration waited) {
    return new IdempotencyConflictException(
        "key '"
            + request.key()
            + "' is in progress in another execution and did not settle within "
            + waited);
  }

  /**
   * Completes, retrying while the store is unavailable: after the body ran, giving up would repeat
   * its side effects. The outage is reported, and between tries the thread waits for the outage's
   * prober to find the store (at most {@link #OUTAGE_WAIT} at a time) rather than calling it
   * itself. Stops when the thread is interrupted (the claim then expires with its lease).
   */
  private void completeRetrying(String key, ClaimToken token, Outcome outcome, Duration ttl) {
    long backoff = FIRST_COMPLETION_BACKOFF_MS;
    while (true) {
      try {
        store.complete(key, token, outcome, ttl);
        return;
      } catch (IdempotencyStoreUnavailableException e) {
        awaitStoreAfter(e, "key '" + key + "'", backoff);
        backoff = Math.min(backoff * 2, MAX_COMPLETION_BACKOFF_MS);
      }
    }
  }

  /**
   * A completion found the store unavailable: reports the outage, waits the backoff, then waits for
   * the outage's prober to find the store (at most {@link #OUTAGE_WAIT}).
   *
   * @throws IdempotencyStoreUnavailableException {@code e}, when interrupted (the flag restored)
   */
  private void awaitStoreAfter(
      IdempotencyStoreUnavailableException e, String what, long backoffMillis) {
    outage.storeUnavailable(e);
    log.warn(
        "completing {} failed (store unavailable: {}); retrying after {} ms, once the store"
            + " answers a probe",
        what,
        e.getMessage(),
        backoffMillis);
    try {
      time.sleep(Duration.ofMillis(backoffMillis));
      outage.awaitStore(OUTAGE_WAIT);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  /** Releases a claim; a failure here only logs. */
  void release(String key, ClaimToken token) {
    release(key, token, false);
  }

  private void forget(String key, ClaimToken token) {
    release(key, token, true);
  }

  /** Releases a claim (forgetting its record's counts when asked); a failure here only logs. */
  private void release(String key, ClaimToken token, boolean forget) {
    try {
      if (forget) {
        store.forget(key, token);
      } else {
        store.fail(key, token);
      }
    } catch (IdempotencyLeaseLostException e) {
      log.debug("claim on key '{}' was already lost when releasing it", key);
    } catch (RuntimeException e) {
      log.warn(
          "releasing the claim on key '{}' failed ({}); it blocks retries until its lease expires",
          key,
          e.toString());
    }
  }
}
