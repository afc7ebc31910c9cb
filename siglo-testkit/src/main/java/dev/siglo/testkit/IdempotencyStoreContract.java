package dev.siglo.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.BatchCompleteResult;
import dev.siglo.consumer.store.BatchRenewResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.CompleteRequest;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.store.RenewRequest;
import dev.siglo.consumer.store.StoredRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link IdempotencyStore} must pass: the record state machine of Siglo's design
 * (§2.1), fencing, lease and retention expiry with an injected clock, fingerprint mismatch, outcome
 * round-trip, oversize outcomes, bad keys, the batch claim, and a concurrency race.
 *
 * <p>Extend it and implement {@link #createStore(MutableClock)}: the store must decide expiry with
 * the given clock. Each test uses keys under a fresh namespace, so a store shared between tests (a
 * real server) needs no cleaning, but {@link IdempotencyStore#clear()} is called before each test.
 */
public abstract class IdempotencyStoreContract {
  /** Lease used by the tests. */
  protected static final Duration LEASE = Duration.ofSeconds(30);

  /** Retention used by the tests. */
  protected static final Duration TTL = Duration.ofHours(1);

  /** The clock the store under test must use. */
  protected final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  /** The store under test, created before each test. */
  protected IdempotencyStore store;

  private IdempotencyKeys keys;

  /**
   * Creates the store under test.
   *
   * @param clock the clock the store must decide lease and retention expiry with
   * @return a store
   */
  protected abstract IdempotencyStore createStore(MutableClock clock);

  /**
   * @return the store's outcome size limit in bytes (the default codec's unless overridden)
   */
  protected int outcomeSizeLimit() {
    return JsonOutcomeCodec.DEFAULT_MAX_BYTES;
  }

  /** Set to {@code true} ({@code -Dsiglo.soak=true}) to run the concurrency race at soak size. */
  public static final String SOAK_PROPERTY = "siglo.soak";

  private static boolean soak() {
    return Boolean.getBoolean(SOAK_PROPERTY);
  }

  /**
   * The race's threads: 32 in {@code mvn verify}, enough to have many claims of one key in flight
   * against the store at once on a 2-core machine (and more threads than cores, so claims
   * interleave at every point); 64 at soak size ({@value #SOAK_PROPERTY}).
   *
   * @return threads of the concurrency race
   */
  protected int raceThreads() {
    return soak() ? 64 : 32;
  }

  /**
   * The race's keys: 250 in {@code mvn verify} (8,000 claims, every key claimed by all threads),
   * 1,000 at soak size ({@value #SOAK_PROPERTY}).
   *
   * @return keys of the concurrency race
   */
  protected int raceKeys() {
    return soak() ? 1_000 : 250;
  }

  @BeforeEach
  void createStoreUnderTest() {
    store = createStore(clock);
    store.clear();
    keys =
        IdempotencyKeys.custom()
            .namespace("contract")
            .version(UUID.randomUUID().toString().substring(0, 8))
            .build();
  }

  @AfterEach
  void closeStoreUnderTest() {
    store.close();
  }

  /**
   * @param raw a raw key
   * @return the key under this test's namespace
   */
  protected String key(String raw) {
    return keys.key(raw);
  }

  private ClaimRequest req(String key) {
    return new ClaimRequest(key, null, LEASE);
  }

  private ClaimRequest req(String key, String fingerprint) {
    return new ClaimRequest(key, fingerprint, LEASE);
  }

  private ClaimToken claimOk(String key) {
    ClaimResult r = store.claim(req(key));
    assertThat(r).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) r).token();
  }

  private static Outcome.Success success(String json) {
    return new Outcome.Success(json);
  }

  @Test
  void claimOfAbsentKeyIsClaimedWithTokenAndLease() {
    String k = key("absent");
    ClaimResult r = store.claim(req(k));
    assertThat(r.status()).isEqualTo(ClaimStatus.CLAIMED);
    ClaimResult.Claimed c = (ClaimResult.Claimed) r;
    assertThat(c.token().value()).isNotBlank();
    assertThat(c.takeover()).isFalse();
    assertThat(c.leaseExpiresAt()).isEqualTo(clock.instant().plus(LEASE));
  }

  @Test
  void claimWhileLeaseIsLiveIsInProgress() {
    String k = key("live");
    claimOk(k);
    clock.advance(LEASE.minusMillis(1));
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(store.getResult(k)).isEmpty();
  }

  @Test
  void completeMakesRecordCompletedAndClaimReturnsOutcome() {
    String k = key("done");
    ClaimToken t = claimOk(k);
    store.complete(k, t, success("{\"charge\":\"ch_1\",\"amount\":1250}"), TTL);
    ClaimResult again = store.claim(req(k));
    assertThat(again)
        .isEqualTo(new ClaimResult.Completed(success("{\"charge\":\"ch_1\",\"amount\":1250}")));
    assertThat(store.getResult(k)).contains(success("{\"charge\":\"ch_1\",\"amount\":1250}"));
    assertThat(store.get(k)).isEqualTo(store.getResult(k));
  }

  @Test
  void declinedOutcomeRoundTripsWithAttributes() {
    String k = key("declined");
    ClaimToken t = claimOk(k);
    Outcome.Declined d =
        new Outcome.Declined(
            "com.acme.CardDeclinedException",
            "card declined: \"insufficient funds\" \u00e9\u4e2d\ud83d\udcb3",
            Map.of("code", "insufficient_funds", "gateway", "sim"));
    store.complete(k, t, d, TTL);
    assertThat(store.getResult(k)).contains(d);
    assertThat(store.claim(req(k))).isEqualTo(new ClaimResult.Completed(d));
  }

  @Test
  void getResultOfInProgressOrAbsentKeyIsEmpty() {
    String k = key("pending");
    assertThat(store.getResult(k)).isEmpty();
    claimOk(k);
    assertThat(store.getResult(k)).isEmpty();
  }

  @Test
  void inspectShowsEachStateOfARecordWithItsOwnerEndsCountsAndOutcome() {
    String k = key("inspected");
    assertThat(store.inspect(k)).isEmpty();
    Instant start = clock.instant();
    ClaimToken first = claimOk(k);
    StoredRecord held = store.inspect(k).orElseThrow();
    assertThat(held.state()).isEqualTo(StoredRecord.State.IN_PROGRESS);
    assertThat(held.ownerToken()).isEqualTo(first.value());
    assertThat(held.leaseEnd()).isEqualTo(start.plus(LEASE));
    assertThat(held.deliveries()).isEqualTo(1);
    assertThat(held.outcome()).isEmpty();
    assertThat(held.live()).isTrue();
    store.fail(k, first);
    StoredRecord released = store.inspect(k).orElseThrow();
    assertThat(released.state()).isEqualTo(StoredRecord.State.RELEASED);
    assertThat(released.ownerToken()).isNull();
    assertThat(released.deliveries()).as("counts kept for the next claim").isEqualTo(1);
    assertThat(released.live()).isFalse();
    ClaimToken second = claimOk(k);
    assertThat(store.inspect(k).orElseThrow().deliveries()).isEqualTo(2);
    Outcome.Declined decline = new Outcome.Declined("com.acme.CardDeclined", "no funds", Map.of());
    store.complete(k, second, decline, TTL);
    StoredRecord completed = store.inspect(k).orElseThrow();
    assertThat(completed.state()).isEqualTo(StoredRecord.State.COMPLETED);
    assertThat(completed.retentionEnd()).isEqualTo(clock.instant().plus(TTL));
    assertThat(completed.outcome()).contains(decline);
    assertThat(completed.live()).isTrue();
    clock.advance(TTL.plusSeconds(1));
    assertThat(store.inspect(k).orElseThrow().live()).as("retention over").isFalse();
  }

  @Test
  void removeDeletesACompletedRecordOrCachedDeclineButNeverALiveClaim() {
    String k = key("removed");
    assertThat(store.remove(k)).isEqualTo(StoredRecord.Removal.ABSENT);
    ClaimToken t = claimOk(k);
    assertThat(store.remove(k)).isEqualTo(StoredRecord.Removal.HELD);
    assertThat(store.inspect(k).orElseThrow().ownerToken()).isEqualTo(t.value());
    store.complete(k, t, new Outcome.Declined("com.acme.CardDeclined", "", Map.of()), TTL);
    assertThat(store.remove(k)).isEqualTo(StoredRecord.Removal.REMOVED);
    assertThat(store.inspect(k)).isEmpty();
    assertThat(store.claim(req(k)))
        .as("the next message runs the handler")
        .isInstanceOf(ClaimResult.Claimed.class);
    clock.advance(LEASE.plusSeconds(1));
    assertThat(store.remove(k))
        .as("an expired claim is a dead holder's")
        .isEqualTo(StoredRecord.Removal.REMOVED);
  }

  @Test
  void failReleasesTheClaimSoTheNextClaimWins() {
    String k = key("released");
    ClaimToken first = claimOk(k);
    store.fail(k, first);
    ClaimToken second = claimOk(k);
    assertThat(second).isNotEqualTo(first);
    assertThat(store.getResult(k)).isEmpty();
  }

  @Test
  void expiredLeaseIsTakenOverWithANewToken() {
    String k = key("abandoned");
    ClaimToken first = claimOk(k);
    clock.advance(LEASE);
    ClaimResult r = store.claim(req(k));
    assertThat(r).isInstanceOf(ClaimResult.Claimed.class);
    ClaimResult.Claimed c = (ClaimResult.Claimed) r;
    assertThat(c.token()).isNotEqualTo(first);
    assertThat(c.takeover()).isTrue();
  }

  @Test
  void staleTokenCannotCompleteFailOrRenewAfterTakeoverAndChangesNothing() {
    String k = key("fenced");
    ClaimToken stale = claimOk(k);
    clock.advance(LEASE);
    ClaimToken current = claimOk(k);

    assertThatThrownBy(() -> store.complete(k, stale, success("\"late\""), TTL))
        .isInstanceOf(IdempotencyLeaseLostException.class)
        .hasMessageContaining(k);
    assertThatThrownBy(() -> store.fail(k, stale))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThatThrownBy(() -> store.renewLease(k, stale, LEASE))
        .isInstanceOf(IdempotencyLeaseLostException.class);

    assertThat(store.getResult(k)).isEmpty();
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    store.complete(k, current, success("\"winner\""), TTL);
    assertThat(store.getResult(k)).contains(success("\"winner\""));
  }

  @Test
  void expiredLeaseStillBelongsToItsTokenUntilTakenOver() {
    String k = key("slow");
    ClaimToken t = claimOk(k);
    clock.advance(LEASE.plusSeconds(5));
    store.complete(k, t, success("\"slow but sole\""), TTL);
    assertThat(store.getResult(k)).contains(success("\"slow but sole\""));
  }

  @Test
  void completeOrFailWithoutAClaimLosesTheLease() {
    String k = key("never-claimed");
    ClaimToken bogus = ClaimToken.random();
    assertThatThrownBy(() -> store.complete(k, bogus, success("1"), TTL))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThatThrownBy(() -> store.fail(k, bogus))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThatThrownBy(() -> store.renewLease(k, bogus, LEASE))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void secondCompleteOrFailAfterCompletionIsRejectedAndOutcomeKept() {
    String k = key("twice");
    ClaimToken t = claimOk(k);
    store.complete(k, t, success("\"first\""), TTL);
    assertThatThrownBy(() -> store.complete(k, t, success("\"second\""), TTL))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThatThrownBy(() -> store.fail(k, t)).isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.getResult(k)).contains(success("\"first\""));
  }

  @Test
  void wrongTokenOfALiveClaimChangesNothing() {
    String k = key("wrong-token");
    ClaimToken t = claimOk(k);
    ClaimToken other = ClaimToken.random();
    assertThatThrownBy(() -> store.complete(k, other, success("1"), TTL))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThatThrownBy(() -> store.fail(k, other))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    store.complete(k, t, success("2"), TTL);
    assertThat(store.getResult(k)).contains(success("2"));
  }

  @Test
  void renewLeaseExtendsTheClaimFromNow() {
    String k = key("heartbeat");
    ClaimToken t = claimOk(k);
    clock.advance(Duration.ofSeconds(20));
    Instant until = store.renewLease(k, t, LEASE);
    assertThat(until).isEqualTo(clock.instant().plus(LEASE));
    clock.advance(Duration.ofSeconds(20));
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    clock.advance(Duration.ofSeconds(10));
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void renewAllRenewsHeldClaimsAndReportsEachOtherEntryOnItsOwn() {
    String held = key("renew-held");
    String stolen = key("renew-stolen");
    ClaimToken heldToken = claimOk(held);
    ClaimToken stale = claimOk(stolen);
    clock.advance(LEASE);
    ClaimToken thief = claimOk(stolen);
    clock.advance(Duration.ofSeconds(5));
    List<BatchRenewResult> out =
        store.renewAll(
            List.of(
                new RenewRequest(held, heldToken, LEASE),
                new RenewRequest(stolen, stale, LEASE),
                new RenewRequest("bad\u0000key", heldToken, LEASE)));

    assertThat(out).hasSize(3);
    assertThat(out.get(0).leaseExpiresAtOrThrow()).isEqualTo(clock.instant().plus(LEASE));
    assertThat(out.get(1).failure()).isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(out.get(2).failure()).isInstanceOf(InvalidIdempotencyKeyException.class);
    clock.advance(LEASE.minusSeconds(1));
    assertThat(store.claim(req(held)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    store.complete(stolen, thief, success("\"thief\""), TTL);
    assertThat(store.getResult(stolen)).contains(success("\"thief\""));
  }

  private ClaimResult.Claimed claimCounting(String k, boolean newDelivery) {
    ClaimResult r = store.claim(new ClaimRequest(k, null, LEASE, newDelivery));
    assertThat(r).isInstanceOf(ClaimResult.Claimed.class);
    return (ClaimResult.Claimed) r;
  }

  @Test
  void deliveriesAreCountedAcrossReleasesButNotForRetriesWithinOneDelivery() {
    String k = key("deliveries");
    ClaimResult.Claimed first = claimCounting(k, true);
    assertThat(first.deliveries()).isEqualTo(1);
    store.fail(k, first.token());
    assertThat(store.getResult(k)).as("a released record acts as absent").isEmpty();
    ClaimResult.Claimed retry = claimCounting(k, false);
    assertThat(retry.deliveries()).as("an in-process retry is the same delivery").isEqualTo(1);
    assertThat(retry.takeover()).isFalse();
    store.fail(k, retry.token());
    ClaimResult.Claimed second = claimCounting(k, true);
    assertThat(second.deliveries()).isEqualTo(2);
    assertThat(second.takeovers()).isZero();
    store.complete(k, second.token(), success("\"done\""), TTL);
    clock.advance(TTL);
    assertThat(claimCounting(k, true).deliveries())
        .as("a completed record's retention ended: counting starts afresh")
        .isEqualTo(1);
  }

  @Test
  void takeoversOfAbandonedClaimsAreCountedAndKeptAcrossReleases() {
    String k = key("crashes");
    claimCounting(k, true);
    clock.advance(LEASE);
    ClaimResult.Claimed once = claimCounting(k, true);
    assertThat(once.takeover()).isTrue();
    assertThat(once.takeovers()).isEqualTo(1);
    clock.advance(LEASE);
    ClaimResult.Claimed twice = claimCounting(k, true);
    assertThat(twice.takeovers()).isEqualTo(2);
    assertThat(twice.deliveries()).isEqualTo(3);
    store.fail(k, twice.token());
    ClaimResult.Claimed after = claimCounting(k, true);
    assertThat(after.takeover()).as("a released claim is no takeover").isFalse();
    assertThat(after.takeovers()).isEqualTo(2);
    assertThat(after.deliveries()).isEqualTo(4);
  }

  @Test
  void forgetReleasesTheClaimAndEndsItsCounts() {
    String k = key("forgotten");
    ClaimResult.Claimed first = claimCounting(k, true);
    store.fail(k, first.token());
    ClaimResult.Claimed second = claimCounting(k, true);
    assertThat(second.deliveries()).isEqualTo(2);
    assertThatThrownBy(() -> store.forget(k, first.token()))
        .isInstanceOf(IdempotencyLeaseLostException.class);
    store.forget(k, second.token());
    ClaimResult.Claimed again = claimCounting(k, true);
    assertThat(again.deliveries()).isEqualTo(1);
    assertThat(again.takeovers()).isZero();
  }

  @Test
  void aReleasedRecordDoesNotHoldItsFingerprint() {
    String k = key("released-fingerprint");
    ClaimResult r = store.claim(new ClaimRequest(k, "a".repeat(64), LEASE));
    store.fail(k, ((ClaimResult.Claimed) r).token());
    assertThat(store.claim(new ClaimRequest(k, "b".repeat(64), LEASE)).status())
        .isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void retentionExpiryMakesTheKeyAbsentAgain() {
    String k = key("retained");
    ClaimToken t = claimOk(k);
    store.complete(k, t, success("\"old\""), TTL);
    clock.advance(TTL.minusMillis(1));
    assertThat(store.getResult(k)).contains(success("\"old\""));
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.COMPLETED);
    clock.advance(Duration.ofMillis(1));
    assertThat(store.getResult(k)).isEmpty();
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void leaseAndRetentionAreIndependent() {
    String k = key("independent");
    ClaimToken t = claimOk(k);
    store.complete(k, t, success("1"), Duration.ofDays(2));
    clock.advance(LEASE.multipliedBy(100));
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.COMPLETED);
  }

  @Test
  void differentFingerprintOnALiveClaimIsKeyReuseAndChangesNothing() {
    String k = key("reuse-in-progress");
    ClaimResult r = store.claim(req(k, "fp-a"));
    ClaimToken t = ((ClaimResult.Claimed) r).token();
    assertThatThrownBy(() -> store.claim(req(k, "fp-b")))
        .isInstanceOf(IdempotencyKeyReuseException.class)
        .hasMessageContaining(k);
    assertThat(store.claim(req(k, "fp-a")).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    store.complete(k, t, success("1"), TTL);
    assertThat(store.getResult(k)).contains(success("1"));
  }

  @Test
  void differentFingerprintOnACompletedKeyIsKeyReuseAndSameFingerprintIsADuplicate() {
    String k = key("reuse-completed");
    ClaimToken t = ((ClaimResult.Claimed) store.claim(req(k, "fp-a"))).token();
    store.complete(k, t, success("\"paid\""), TTL);
    assertThatThrownBy(() -> store.claim(req(k, "fp-b")))
        .isInstanceOf(IdempotencyKeyReuseException.class);
    assertThat(store.claim(req(k, "fp-a")))
        .isEqualTo(new ClaimResult.Completed(success("\"paid\"")));
    assertThat(store.claim(req(k, null)).status()).isEqualTo(ClaimStatus.COMPLETED);
    assertThat(store.getResult(k)).contains(success("\"paid\""));
  }

  @Test
  void oversizeOutcomeIsRejectedAndTheRecordStaysInProgress() {
    String k = key("oversize");
    ClaimToken t = claimOk(k);
    String big = "\"" + "x".repeat(outcomeSizeLimit()) + "\"";
    assertThatThrownBy(() -> store.complete(k, t, success(big), TTL))
        .isInstanceOf(OutcomeTooLargeException.class)
        .hasMessageContaining(String.valueOf(outcomeSizeLimit()));
    assertThat(store.getResult(k)).isEmpty();
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    String fits = "\"" + "y".repeat(outcomeSizeLimit() / 2) + "\"";
    store.complete(k, t, success(fits), TTL);
    assertThat(store.getResult(k)).contains(success(fits));
  }

  @Test
  void invalidKeysAreRejectedBeforeAnythingIsWritten() {
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.add("");
    bad.add("   ");
    bad.add("line\nbreak");
    bad.add("nul\u0000byte");
    bad.add("bidi\u202eoverride");
    bad.add("lone\ud800surrogate");
    bad.add("k".repeat(IdempotencyKeys.MAX_STORE_KEY_LENGTH + 1));
    ClaimToken t = ClaimToken.random();
    for (String k : bad) {
      assertThatThrownBy(() -> store.claim(new ClaimRequest(k, null, LEASE)))
          .isInstanceOf(InvalidIdempotencyKeyException.class);
      assertThatThrownBy(() -> store.complete(k, t, success("1"), TTL))
          .isInstanceOf(InvalidIdempotencyKeyException.class);
      assertThatThrownBy(() -> store.fail(k, t)).isInstanceOf(InvalidIdempotencyKeyException.class);
      assertThatThrownBy(() -> store.getResult(k))
          .isInstanceOf(InvalidIdempotencyKeyException.class);
    }
    String truncatedCousin = "k".repeat(IdempotencyKeys.MAX_STORE_KEY_LENGTH);
    assertThat(store.claim(req(truncatedCousin)).status()).isEqualTo(ClaimStatus.CLAIMED);
    assertThat(store.claim(req("line")).status()).isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void keysWithQuotesAndScriptOrSqlMetacharactersAreStoredVerbatimAndDistinct() {
    List<String> raws =
        List.of(
            "o'neil",
            "\"quoted\"",
            "'; DROP TABLE siglo_idempotency; --",
            "redis.call('FLUSHALL')",
            "]]..[[",
            "%_*?[]{}$\\",
            "emoji-\ud83d\udcb3",
            "tab-free spaces inside");
    Map<String, ClaimToken> tokens = new java.util.HashMap<>();
    for (String raw : raws) {
      tokens.put(key(raw), claimOk(key(raw)));
    }
    int i = 0;
    for (String raw : raws) {
      store.complete(key(raw), tokens.get(key(raw)), success(String.valueOf(i++)), TTL);
    }
    i = 0;
    for (String raw : raws) {
      assertThat(store.getResult(key(raw))).contains(success(String.valueOf(i++)));
    }
  }

  @Test
  void batchClaimAnswersLikeSingleClaims() {
    String absent = key("b-absent");
    String live = key("b-live");
    String done = key("b-done");
    String reused = key("b-reused");
    claimOk(live);
    ClaimToken t = claimOk(done);
    store.complete(done, t, success("\"d\""), TTL);
    store.claim(req(reused, "fp-1"));

    List<BatchClaimResult> results =
        store.claimAll(
            List.of(
                req(absent),
                req(live),
                req(done),
                req(reused, "fp-2"),
                new ClaimRequest("bad\nkey", null, LEASE)));

    assertThat(results).hasSize(5);
    assertThat(results.get(0).resultOrThrow().status()).isEqualTo(ClaimStatus.CLAIMED);
    assertThat(results.get(1).resultOrThrow().status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(results.get(2).resultOrThrow())
        .isEqualTo(new ClaimResult.Completed(success("\"d\"")));
    assertThat(results.get(3).failure()).isInstanceOf(IdempotencyKeyReuseException.class);
    assertThat(results.get(4).failure()).isInstanceOf(InvalidIdempotencyKeyException.class);
    for (int i = 0; i < 5; i++) {
      assertThat(results.get(i).request()).isSameAs(results.get(i).request());
    }
    assertThat(store.claim(req(absent)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    ClaimToken batchToken = ((ClaimResult.Claimed) results.get(0).result()).token();
    store.complete(absent, batchToken, success("\"b\""), TTL);
    assertThat(store.getResult(absent)).contains(success("\"b\""));
  }

  @Test
  void batchCompleteAnswersLikeSingleCompletes() {
    String held = key("c-held");
    String done = key("c-done");
    String other = key("c-other");
    String taken = key("c-taken");
    String oversize = key("c-oversize");
    ClaimToken heldToken = claimOk(held);
    ClaimToken doneToken = claimOk(done);
    store.complete(done, doneToken, success("\"first\""), TTL);
    ClaimToken stale = claimOk(taken);
    clock.advance(LEASE.plusSeconds(1));
    ClaimToken newOwner = claimOk(taken);
    claimOk(other);
    ClaimToken oversizeToken = claimOk(oversize);
    String big = "\"" + "x".repeat(outcomeSizeLimit()) + "\"";

    List<CompleteRequest> requests =
        List.of(
            new CompleteRequest(held, heldToken, success("\"h\""), TTL),
            new CompleteRequest(done, doneToken, success("\"second\""), TTL),
            new CompleteRequest(other, ClaimToken.random(), success("\"o\""), TTL),
            new CompleteRequest(taken, stale, success("\"stale\""), TTL),
            new CompleteRequest(oversize, oversizeToken, success(big), TTL),
            new CompleteRequest("bad\nkey", ClaimToken.random(), success("1"), TTL));
    List<BatchCompleteResult> results = store.completeAll(requests);

    assertThat(results).hasSize(6);
    for (int i = 0; i < 6; i++) {
      assertThat(results.get(i).request()).isSameAs(requests.get(i));
    }
    assertThat(results.get(0).failure()).isNull();
    assertThat(store.getResult(held)).contains(success("\"h\""));
    assertThat(results.get(1).failure()).isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.getResult(done)).contains(success("\"first\""));
    assertThat(results.get(2).failure()).isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.claim(req(other)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(results.get(3).failure()).isInstanceOf(IdempotencyLeaseLostException.class);
    assertThat(store.getResult(taken)).isEmpty();
    store.complete(taken, newOwner, success("\"new\""), TTL);
    assertThat(store.getResult(taken)).contains(success("\"new\""));
    assertThat(results.get(4).failure()).isInstanceOf(OutcomeTooLargeException.class);
    assertThat(store.claim(req(oversize)).status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    assertThat(results.get(5).failure()).isInstanceOf(InvalidIdempotencyKeyException.class);
    assertThat(store.completeAll(List.of())).isEmpty();
  }

  @Test
  void clearRemovesEveryRecord() {
    String k = key("cleared");
    ClaimToken t = claimOk(k);
    store.complete(k, t, success("1"), TTL);
    store.clear();
    assertThat(store.getResult(k)).isEmpty();
    assertThat(store.claim(req(k)).status()).isEqualTo(ClaimStatus.CLAIMED);
  }

  @Test
  void concurrentClaimersGetExactlyOneClaimPerKey() throws Exception {
    int threads = raceThreads();
    int keyCount = raceKeys();
    List<String> raceKeys = new ArrayList<>(keyCount);
    for (int i = 0; i < keyCount; i++) {
      raceKeys.add(key("race-" + i));
    }
    Map<String, AtomicInteger> claimed = new ConcurrentHashMap<>();
    AtomicInteger answers = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int th = 0; th < threads; th++) {
        List<String> order = new ArrayList<>(raceKeys);
        Collections.shuffle(order, new Random(th));
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (String k : order) {
                    if (store.claim(req(k)).status() == ClaimStatus.CLAIMED) {
                      claimed.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                    }
                    answers.incrementAndGet();
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(answers.get()).isEqualTo(threads * keyCount);
    assertThat(claimed).hasSize(keyCount);
    assertThat(claimed.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }
}
