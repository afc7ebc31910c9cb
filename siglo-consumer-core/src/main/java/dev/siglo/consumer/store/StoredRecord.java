package dev.siglo.consumer.store;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What a store holds for one key, as an operator sees it ({@link IdempotencyStore#inspect}): the
 * state, the claim's owner token and lease end, the completed record's retention end and outcome,
 * and the deliveries and takeovers counted so far. Ends are read against the store's clock at
 * {@code readAt}: a claim whose lease ended, or a completion whose retention ended, acts as absent
 * (the next claim takes the key).
 *
 * @param state the record's state
 * @param ownerToken the claim's owner token (claimed records), else null
 * @param leaseEnd the claim's lease end (claimed records), else null
 * @param retentionEnd the completed record's retention end, else null
 * @param deliveries deliveries counted on the record (claimed and released records; a completed
 *     record ends its counts and holds 0)
 * @param takeovers takeovers of the claim from a dead holder, counted like deliveries
 * @param outcome the stored outcome (completed records)
 * @param readAt the store's time of the read
 */
public record StoredRecord(
    State state,
    String ownerToken,
    Instant leaseEnd,
    Instant retentionEnd,
    int deliveries,
    int takeovers,
    Optional<Outcome> outcome,
    Instant readAt) {

  /** A record's state. */
  public enum State {
    /** Claimed by a consumer: a handler runs (or ran and died) under the lease. */
    IN_PROGRESS,
    /** Completed: a success or a cached decline, answered to duplicates within retention. */
    COMPLETED,
    /** Released after a transient failure: acts as absent, keeps its counts for the next claim. */
    RELEASED
  }

  /** What {@link IdempotencyStore#remove} did. */
  public enum Removal {
    /** The record was deleted: the next message with the key runs the handler. */
    REMOVED,
    /** There was no record. */
    ABSENT,
    /** A live claim holds the key (a handler may be running): nothing was deleted. */
    HELD
  }

  /**
   * Validates.
   *
   * @param state see the record component
   * @param ownerToken see the record component
   * @param leaseEnd see the record component
   * @param retentionEnd see the record component
   * @param deliveries see the record component
   * @param takeovers see the record component
   * @param outcome see the record component
   * @param readAt see the record component
   */
  public StoredRecord {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(readAt, "readAt");
  }

  /**
   * @return whether the record is in effect at {@link #readAt()}: a claim within its lease or a
   *     completion within its retention (a released record never is)
   */
  public boolean live() {
    return switch (state) {
      case IN_PROGRESS -> leaseEnd != null && readAt.isBefore(leaseEnd);
      case COMPLETED -> retentionEnd != null && readAt.isBefore(retentionEnd);
      case RELEASED -> false;
    };
  }
}
