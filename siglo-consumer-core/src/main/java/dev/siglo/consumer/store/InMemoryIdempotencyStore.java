package dev.siglo.consumer.store;

import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.support.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The default {@link IdempotencyStore}: records in a {@link ConcurrentHashMap} of one process, each
 * transition one atomic {@code compute}. For a single process and for tests; use the Redis or
 * PostgreSQL store to share records between processes.
 *
 * <p><b>Bounded.</b> At most {@code maxEntries} records (default {@value #DEFAULT_MAX_ENTRIES}).
 * When a new key arrives at capacity, the store evicts the oldest <em>completed</em> records (which
 * shortens their retention: a duplicate arriving after that eviction runs again), then expired
 * claims; it never evicts a live claim. When every record is a live claim it refuses the new claim
 * with {@link IdempotencyStoreUnavailableException} (transient).
 *
 * <p>Outcomes are stored encoded by the {@link OutcomeCodec} (size limit enforced), so no caller
 * object is retained. Time comes from the injected {@link Clock}. Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {
  /** The default maximum number of records. */
  public static final int DEFAULT_MAX_ENTRIES = 1_000_000;

  private static final int SHARED_OUTCOME_BYTES = 64;

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final CompletionLog completionOrder = new CompletionLog();
  private final AtomicLong completionSequence = new AtomicLong();
  private final Clock clock;
  private final OutcomeCodec codec;
  private final int maxEntries;
  // the last small outcome stored: a completion with equal bytes shares this array (most handlers
  // return the same few values, often none), one retained object fewer per record
  private volatile byte[] lastOutcome;

  private InMemoryIdempotencyStore(Builder b) {
    this.clock = b.clock;
    this.codec = b.codec;
    this.maxEntries = b.maxEntries;
  }

  /**
   * @return a store with the system clock, the JSON codec and the default bound
   */
  public static InMemoryIdempotencyStore of() {
    return custom().build();
  }

  /**
   * @return a builder
   */
  public static Builder custom() {
    return new Builder();
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    String key = StoreKeys.requireValid(request.key());
    long now = clock.millis();
    if (!entries.containsKey(key) && entries.size() >= maxEntries) {
      makeRoom(now);
    }
    ClaimResult[] answer = new ClaimResult[1];
    byte[][] completedOutcome = new byte[1][];
    entries.compute(
        key,
        (k, e) -> {
          if (e == null || e.expired(now)) {
            ClaimToken token = ClaimToken.random();
            long leaseEnd = now + request.lease().toMillis();
            boolean takeover = e != null && e.outcome == null && !e.released;
            // a released or taken-over record carries its counts on; a completed one ends them
            boolean counting = e != null && e.outcome == null;
            int deliveries = (counting ? e.deliveries : 0) + (request.newDelivery() ? 1 : 0);
            int takeovers = (counting ? e.takeovers : 0) + (takeover ? 1 : 0);
            answer[0] =
                new ClaimResult.Claimed(
                    token,
                    Instant.ofEpochMilli(leaseEnd),
                    takeover,
                    Math.max(1, deliveries),
                    takeovers);
            return Entry.inProgress(token, request.fingerprint(), leaseEnd, deliveries, takeovers);
          }
          if (e.fingerprint != null
              && request.fingerprint() != null
              && !e.fingerprint.equals(request.fingerprint())) {
            throw new IdempotencyKeyReuseException(
                "key '" + k + "' was claimed before with a different payload fingerprint");
          }
          if (e.outcome == null) {
            answer[0] = new ClaimResult.InProgress(Instant.ofEpochMilli(e.leaseEnd));
          } else {
            completedOutcome[0] = e.outcome;
          }
          return e;
        });
    // decode outside the map's lock; the encoded outcome is never mutated
    return answer[0] != null
        ? answer[0]
        : new ClaimResult.Completed(codec.decode(completedOutcome[0]));
  }

  @Override
  public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
    StoreKeys.requireValid(key);
    Objects.requireNonNull(token, "token");
    Objects.requireNonNull(outcome, "outcome");
    Durations.requirePositive(retention, "retention");
    byte[] encoded = shared(codec.encode(outcome));
    long now = clock.millis();
    long sequence = completionSequence.incrementAndGet();
    entries.compute(
        key,
        (k, e) -> {
          requireHeldBy(k, e, token);
          return Entry.completed(e.fingerprint, encoded, now + retention.toMillis(), sequence);
        });
    if (completionOrder.add(key, sequence) > 2 * maxEntries) {
      completionOrder.dropStale(this::stale);
    }
  }

  /** {@code encoded}, or the equal array the last completion stored (never mutated). */
  private byte[] shared(byte[] encoded) {
    byte[] last = lastOutcome;
    if (last != null && Arrays.equals(last, encoded)) {
      return last;
    }
    if (encoded.length <= SHARED_OUTCOME_BYTES) {
      lastOutcome = encoded;
    }
    return encoded;
  }

  @Override
  public void fail(String key, ClaimToken token) {
    replaceHeld(key, token, Entry::released);
  }

  @Override
  public void forget(String key, ClaimToken token) {
    replaceHeld(key, token, e -> null);
  }

  /** Replaces the record of {@code key} held by {@code token} with {@code next} of it. */
  private void replaceHeld(String key, ClaimToken token, UnaryOperator<Entry> next) {
    StoreKeys.requireValid(key);
    Objects.requireNonNull(token, "token");
    entries.compute(
        key,
        (k, e) -> {
          requireHeldBy(k, e, token);
          return next.apply(e);
        });
  }

  @Override
  public Instant renewLease(String key, ClaimToken token, Duration lease) {
    Durations.requirePositive(lease, "lease");
    long leaseEnd = clock.millis() + lease.toMillis();
    replaceHeld(
        key,
        token,
        e -> Entry.inProgress(token, e.fingerprint, leaseEnd, e.deliveries, e.takeovers));
    return Instant.ofEpochMilli(leaseEnd);
  }

  @Override
  public Optional<Outcome> getResult(String key) {
    StoreKeys.requireValid(key);
    Entry e = entries.get(key);
    if (e == null || e.outcome == null || e.expired(clock.millis())) {
      return Optional.empty();
    }
    return Optional.of(codec.decode(e.outcome));
  }

  @Override
  public Optional<StoredRecord> inspect(String key) {
    StoreKeys.requireValid(key);
    Entry e = entries.get(key);
    Instant now = Instant.ofEpochMilli(clock.millis());
    if (e == null) {
      return Optional.empty();
    }
    if (e.released) {
      return Optional.of(
          new StoredRecord(
              StoredRecord.State.RELEASED,
              null,
              null,
              null,
              e.deliveries,
              e.takeovers,
              Optional.empty(),
              now));
    }
    if (e.outcome == null) {
      return Optional.of(
          new StoredRecord(
              StoredRecord.State.IN_PROGRESS,
              e.token.value(),
              Instant.ofEpochMilli(e.leaseEnd),
              null,
              e.deliveries,
              e.takeovers,
              Optional.empty(),
              now));
    }
    return Optional.of(
        new StoredRecord(
            StoredRecord.State.COMPLETED,
            null,
            null,
            Instant.ofEpochMilli(e.retentionEnd),
            0,
            0,
            Optional.of(codec.decode(e.outcome)),
            now));
  }

  @Override
  public StoredRecord.Removal remove(String key) {
    StoreKeys.requireValid(key);
    long now = clock.millis();
    StoredRecord.Removal[] done = {StoredRecord.Removal.ABSENT};
    entries.computeIfPresent(
        key,
        (k, e) -> {
          if (e.outcome == null && !e.released && now < e.leaseEnd) {
            done[0] = StoredRecord.Removal.HELD;
            return e;
          }
          done[0] = StoredRecord.Removal.REMOVED;
          return null;
        });
    return done[0];
  }

  @Override
  public void clear() {
    entries.clear();
    completionOrder.clear();
  }

  /**
   * Removes every expired record now (expired records are otherwise ignored on read and replaced on
   * claim).
   *
   * @return how many records were removed
   */
  public int purgeExpired() {
    long now = clock.millis();
    int[] removed = new int[1];
    entries.forEach(
        (k, v) -> {
          if (v.expired(now) && entries.remove(k, v)) {
            removed[0]++;
          }
        });
    return removed[0];
  }

  /**
   * @return the number of records held, expired ones included
   */
  public int size() {
    return entries.size();
  }

  private void makeRoom(long now) {
    while (entries.size() >= maxEntries) {
      CompletionLog.Completion oldest = completionOrder.poll();
      if (oldest == null) {
        break;
      }
      entries.computeIfPresent(oldest.key(), (k, e) -> e.sequence == oldest.sequence() ? null : e);
    }
    if (entries.size() >= maxEntries) {
      purgeExpired();
    }
    if (entries.size() >= maxEntries) {
      throw new IdempotencyStoreUnavailableException(
          "in-memory idempotency store is full: "
              + entries.size()
              + " live claims (maxEntries "
              + maxEntries
              + ")");
    }
  }

  /** Whether a logged completion no longer names its key's current record. */
  private boolean stale(String key, long sequence) {
    Entry e = entries.get(key);
    return e == null || e.sequence != sequence;
  }

  private static void requireHeldBy(String key, Entry e, ClaimToken token) {
    if (e == null || e.outcome != null || e.released || !e.token.equals(token)) {
      throw token.notHeldOn(key);
    }
  }

  /** One record; immutable, replaced on every transition. */
  private static final class Entry {
    final ClaimToken token;
    final String fingerprint;
    final long leaseEnd;
    final byte[] outcome;
    final long retentionEnd;
    final long sequence;
    final int deliveries;
    final int takeovers;
    final boolean released;

    private Entry(
        ClaimToken token,
        String fingerprint,
        long leaseEnd,
        byte[] outcome,
        long retentionEnd,
        long sequence,
        int deliveries,
        int takeovers,
        boolean released) {
      this.token = token;
      this.fingerprint = fingerprint;
      this.leaseEnd = leaseEnd;
      this.outcome = outcome;
      this.retentionEnd = retentionEnd;
      this.sequence = sequence;
      this.deliveries = deliveries;
      this.takeovers = takeovers;
      this.released = released;
    }

    static Entry inProgress(
        ClaimToken token, String fingerprint, long leaseEnd, int deliveries, int takeovers) {
      return new Entry(token, fingerprint, leaseEnd, null, 0L, 0L, deliveries, takeovers, false);
    }

    static Entry completed(String fingerprint, byte[] outcome, long retentionEnd, long sequence) {
      return new Entry(null, fingerprint, 0L, outcome, retentionEnd, sequence, 0, 0, false);
    }

    /** Released: acts as absent (expired), keeping only the counts for the next claim. */
    static Entry released(Entry held) {
      return new Entry(null, null, 0L, null, 0L, 0L, held.deliveries, held.takeovers, true);
    }

    boolean expired(long now) {
      return released || (outcome == null ? now >= leaseEnd : now >= retentionEnd);
    }

    @Override
    public String toString() {
      return released
          ? "RELEASED(" + deliveries + " deliveries)"
          : outcome == null
              ? "IN_PROGRESS(" + token + ")"
              : "COMPLETED(" + Arrays.hashCode(outcome) + ")";
    }
  }

  /** Builds an {@link InMemoryIdempotencyStore}; every setter validates. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private OutcomeCodec codec = JsonOutcomeCodec.of();
    private int maxEntries = DEFAULT_MAX_ENTRIES;

    private Builder() {}

    /**
     * @param clock the clock deciding lease and retention expiry
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * @param codec the outcome codec
     * @return this builder
     */
    public Builder codec(OutcomeCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * @param maxEntries the maximum number of records; positive
     * @return this builder
     */
    public Builder maxEntries(int maxEntries) {
      if (maxEntries < 1) {
        throw new IllegalArgumentException("maxEntries must be positive, was " + maxEntries);
      }
      this.maxEntries = maxEntries;
      return this;
    }

    /**
     * @return the store
     */
    public InMemoryIdempotencyStore build() {
      return new InMemoryIdempotencyStore(this);
    }
  }
}
