package dev.siglo.consumer.store;

import dev.siglo.consumer.error.IdempotencyKeyReuseException;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The idempotency store SPI: the record state machine of Siglo's design (§2.1), the same for every
 * store.
 *
 * <pre>
 * ABSENT --claim--> IN_PROGRESS(token, lease) --complete(token)--> COMPLETED(outcome, retention)
 *   ^                   |  fail(token)                                  | retention expired
 *   +-------------------+  lease expired: next claim takes it over      +--> acts as ABSENT
 * </pre>
 *
 * <ul>
 *   <li>{@link #claim} answers exactly one of {@code CLAIMED}, {@code COMPLETED} (with the stored
 *       outcome) or {@code IN_PROGRESS}, atomically for any number of concurrent callers in any
 *       number of processes: at most one caller holds a key's claim while its lease is live. An
 *       in-progress claim whose lease expired is taken over by the next claim with a new token.
 *   <li>{@link #complete}, {@link #fail} and {@link #renewLease} succeed only for the token that
 *       holds the claim (fencing); otherwise they throw {@link IdempotencyLeaseLostException} and
 *       change nothing. A lease that expired but was not taken over still belongs to its token.
 *   <li>The lease (how long an in-progress claim blocks others) and the retention (how long a
 *       completed outcome is kept) are separate durations. Expiry is decided by comparing stored
 *       timestamps with the store's clock on every read; a backend's own TTL is only for garbage
 *       collection.
 *   <li>A claim of a key whose live record has a different, non-null payload fingerprint throws
 *       {@link IdempotencyKeyReuseException}; the record is unchanged.
 *   <li>A record counts its deliveries (claims that start one) and how often an abandoned claim was
 *       taken over; {@link #fail} keeps the counts, {@link #complete} and {@link #forget} end them.
 *       {@link ClaimResult.Claimed} reports both, so a runtime bounds deliveries across restarts
 *       and recognises a record whose holder keeps dying.
 *   <li>Outcomes are stored through an {@link OutcomeCodec} (JSON, never Java serialization); an
 *       outcome over its size limit is rejected at {@code complete} with {@link
 *       OutcomeTooLargeException} and the record stays in progress.
 *   <li>Keys are validated with {@code IdempotencyKeys.requireValidStoreKey}; an invalid key throws
 *       {@link InvalidIdempotencyKeyException} before anything is written.
 *   <li>A store that cannot be reached throws {@link IdempotencyStoreUnavailableException}
 *       (transient).
 * </ul>
 *
 * <p>Implementations must be thread-safe. Every store must pass the contract suite in {@code
 * siglo-testkit} ({@code IdempotencyStoreContract}).
 */
public interface IdempotencyStore extends AutoCloseable {

  /**
   * Claims a key.
   *
   * @param request the key, fingerprint and lease
   * @return {@code CLAIMED} with a token, {@code COMPLETED} with the outcome, or {@code
   *     IN_PROGRESS}
   * @throws IdempotencyKeyReuseException when the live record has a different fingerprint
   * @throws InvalidIdempotencyKeyException when the key is invalid
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  ClaimResult claim(ClaimRequest request);

  /**
   * Claims many keys, in one round trip where the backend allows. Each entry answers exactly what
   * {@link #claim} would have answered, or carries the exception it would have thrown. The default
   * calls {@link #claim} for each request.
   *
   * @param requests the requests, keys distinct
   * @return one entry per request, in order
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  default List<BatchClaimResult> claimAll(List<ClaimRequest> requests) {
    List<BatchClaimResult> out = new ArrayList<>(requests.size());
    for (ClaimRequest r : requests) {
      try {
        out.add(BatchClaimResult.of(r, claim(r)));
      } catch (IdempotencyKeyReuseException | InvalidIdempotencyKeyException e) {
        out.add(BatchClaimResult.failed(r, e));
      }
    }
    return out;
  }

  /**
   * Completes a claimed key with its outcome; the record becomes {@code COMPLETED} for the
   * retention.
   *
   * @param key the key
   * @param token the token of the claim
   * @param outcome the outcome
   * @param retention how long the outcome is kept; positive
   * @throws IdempotencyLeaseLostException when the token does not hold the claim
   * @throws OutcomeTooLargeException when the encoded outcome is over the size limit
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  void complete(String key, ClaimToken token, Outcome outcome, Duration retention);

  /**
   * Completes many claims, in one round trip where the backend allows. Each entry reports what
   * {@link #complete} would have done for it: done, or the exception it would have thrown. The
   * default calls {@link #complete} for each request.
   *
   * @param requests the completions, keys distinct
   * @return one entry per request, in order
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  default List<BatchCompleteResult> completeAll(List<CompleteRequest> requests) {
    List<BatchCompleteResult> out = new ArrayList<>(requests.size());
    for (CompleteRequest r : requests) {
      try {
        complete(r.key(), r.token(), r.outcome(), r.retention());
        out.add(BatchCompleteResult.done(r));
      } catch (IdempotencyLeaseLostException
          | OutcomeTooLargeException
          | InvalidIdempotencyKeyException e) {
        out.add(BatchCompleteResult.failed(r, e));
      }
    }
    return out;
  }

  /**
   * Whether {@link #claimAll} and {@link #completeAll} cost one round trip whatever their size. The
   * runtimes then coalesce the claims and completions their workers make at the same time into
   * those batch calls (a group commit), so a network store pays one round trip per batch instead of
   * one per message. The default is {@code false} (an in-process store gains nothing).
   *
   * @return whether concurrent calls should be coalesced into batches
   */
  default boolean prefersBatches() {
    return false;
  }

  /**
   * Releases a claim (transient failure): the record acts as absent, so a retry can claim it, but
   * keeps its delivery and takeover counts for the next claim (a store that keeps no counts removes
   * it).
   *
   * @param key the key
   * @param token the token of the claim
   * @throws IdempotencyLeaseLostException when the token does not hold the claim
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  void fail(String key, ClaimToken token);

  /**
   * Releases a claim and forgets the record with its counts (the message leaves through a dead
   * letter, so a replay of it starts counting afresh). The default calls {@link #fail}.
   *
   * @param key the key
   * @param token the token of the claim
   * @throws IdempotencyLeaseLostException when the token does not hold the claim
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  default void forget(String key, ClaimToken token) {
    fail(key, token);
  }

  /**
   * Extends a held claim's lease from now (the engine renews the claims of running handlers and
   * steps; see {@link #renewAll}).
   *
   * @param key the key
   * @param token the token of the claim
   * @param lease the new lease from now; positive
   * @return the new lease expiry
   * @throws IdempotencyLeaseLostException when the token does not hold the claim
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  Instant renewLease(String key, ClaimToken token, Duration lease);

  /**
   * Extends many held claims' leases, in one round trip where the backend allows. Each entry
   * reports what {@link #renewLease} would have done for it: the new lease end, or the exception it
   * would have thrown. The engine renews every live claim of a running handler or step through this
   * call (a fraction of the lease after the claim or its last renewal). The default calls {@link
   * #renewLease} for each request.
   *
   * @param requests the renewals, keys distinct
   * @return one entry per request, in order
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  default List<BatchRenewResult> renewAll(List<RenewRequest> requests) {
    List<BatchRenewResult> out = new ArrayList<>(requests.size());
    for (RenewRequest r : requests) {
      try {
        out.add(BatchRenewResult.renewed(r, renewLease(r.key(), r.token(), r.lease())));
      } catch (IdempotencyLeaseLostException | InvalidIdempotencyKeyException e) {
        out.add(BatchRenewResult.failed(r, e));
      }
    }
    return out;
  }

  /**
   * Reads a completed outcome.
   *
   * @param key the key
   * @return the outcome when the key is completed and within retention; empty otherwise
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   */
  Optional<Outcome> getResult(String key);

  /**
   * Alias of {@link #getResult(String)}, as in the reference interface.
   *
   * @param key the key
   * @return the completed outcome, if any
   */
  default Optional<Outcome> get(String key) {
    return getResult(key);
  }

  /**
   * Checks that the store answers and accepts this process's credentials, for a launcher's or an
   * application's start-up check. The default reads a record that does not exist.
   *
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   * @throws dev.siglo.consumer.error.SigloConfigurationException when the store rejects the
   *     credentials or the configuration (where the store can tell)
   */
  default void checkConnection() {
    getResult("siglo:check-connection");
  }

  /**
   * Reads the record of a key as an operator sees it ({@code siglo inspect}): state, owner, lease
   * and retention ends, counts and outcome, expired records included.
   *
   * @param key the key
   * @return the record, empty when the store holds none for the key
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   * @throws UnsupportedOperationException when the store cannot (the default)
   */
  default Optional<StoredRecord> inspect(String key) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot inspect records");
  }

  /**
   * Deletes the record of a key unless a live claim holds it, atomically ({@code siglo forget}): a
   * cached decline, once its cause is fixed, or a completed record, so that the next message with
   * the key runs the handler again.
   *
   * @param key the key
   * @return what was done
   * @throws IdempotencyStoreUnavailableException when the store cannot be reached
   * @throws UnsupportedOperationException when the store cannot (the default)
   */
  default StoredRecord.Removal remove(String key) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot remove records");
  }

  /** Removes every record of this store (tests). */
  void clear();

  /** Releases the store's resources (connections). Idempotent. The default does nothing. */
  @Override
  default void close() {}
}
