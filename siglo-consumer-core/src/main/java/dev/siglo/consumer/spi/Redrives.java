package dev.siglo.consumer.spi;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the runtimes' redrive (dead letters back to their topic or queue) shares: the selection, the
 * decision for each dead letter, and the report. A dead letter whose key completed meanwhile is
 * skipped (redriving it would be a no-op, or replay a cached decline); one redriven {@code
 * maxRedrives} times already stops at the loop guard; the rest, when selected, goes back with its
 * redrive count raised by one ({@value #COUNT}).
 */
public final class Redrives {
  /** Header (Kafka) or message attribute (SQS) counting a message's redrives. */
  public static final String COUNT = "siglo.redrive.count";

  /**
   * Header naming the first original of a redriven Kafka record ({@code topic/partition/offset}),
   * so that older dead letters of the same record are told apart from its latest.
   */
  public static final String ORIGIN = "siglo.redrive.origin";

  private Redrives() {}

  /**
   * Which dead letters to redrive.
   *
   * @param reasons dead-letter reasons to take ({@code POISON}, ...); empty for all
   * @param since take dead letters from this time on, or null
   * @param until take dead letters before this time, or null
   * @param rawKeys idempotency keys to take, as the messages carry them; empty for all
   * @param limit redrive at most this many, at least 1
   * @param maxRedrives the loop guard: a dead letter redriven this many times already stays
   */
  public record Selection(
      Set<String> reasons,
      Instant since,
      Instant until,
      Set<String> rawKeys,
      int limit,
      int maxRedrives) {
    /**
     * Validates and copies.
     *
     * @param reasons see the record component
     * @param since see the record component
     * @param until see the record component
     * @param rawKeys see the record component
     * @param limit see the record component
     * @param maxRedrives see the record component
     */
    public Selection {
      reasons = Set.copyOf(reasons);
      rawKeys = Set.copyOf(rawKeys);
      if (limit < 1 || maxRedrives < 1) {
        throw new IllegalArgumentException("limit and maxRedrives must be at least 1");
      }
    }
  }

  /** A dead letter as the redrive sees it. */
  public record DeadLetter(
      String id, String reason, Instant deadLetteredAt, int redrives, String rawKey) {}

  /** What happens to one dead letter. */
  public enum Verdict {
    /** Re-published to its original topic or queue (or would be, in a dry run). */
    REDRIVEN,
    /** Its key completed meanwhile: skipped (and, on SQS, deleted from the dead-letter queue). */
    COMPLETED,
    /** Redriven {@code maxRedrives} times already: left where it is. */
    LOOP_GUARD,
    /** A later dead letter of the same record exists: this one is left. */
    SUPERSEDED,
    /** Outside the selection (reason, time, key, or past the limit): left. */
    NOT_SELECTED
  }

  /**
   * @param message the dead letter as the runtime maps it (its original's key source intact)
   * @param decoder the consumer's decoder
   * @param extractor the consumer's key extractor
   * @param <T> the payload type
   * @return the raw key as the consumer saw it, empty when there is none or the payload does not
   *     decode
   */
  public static <T> Optional<String> rawKey(
      Message message, PayloadDecoder<T> decoder, IdempotencyKeyExtractor<? super T> extractor) {
    T value;
    try {
      value = decoder.decode(message);
    } catch (Exception e) {
      value = null; // poison: the key may still be in a header
    }
    try {
      return extractor.extract(message, value).filter(k -> !k.isBlank());
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** Decides each dead letter of one run, in order, and keeps its report. Not thread-safe. */
  public static final class Planner {
    private final Selection selection;
    private final IdempotencyStore store;
    private final IdempotencyKeys keys;
    private final boolean dryRun;
    private final Map<Verdict, Integer> counts = new EnumMap<>(Verdict.class);
    private final List<String> lines = new ArrayList<>();
    private int redriven;

    /**
     * @param selection what to redrive
     * @param store the consumer's store, to skip completed keys; null when there is none to ask
     * @param keys how the consumer stores keys (namespace, version)
     * @param dryRun report only
     */
    public Planner(
        Selection selection, IdempotencyStore store, IdempotencyKeys keys, boolean dryRun) {
      this.selection = Objects.requireNonNull(selection, "selection");
      this.store = store;
      this.keys = Objects.requireNonNull(keys, "keys");
      this.dryRun = dryRun;
    }

    /**
     * @return whether nothing is changed (report only)
     */
    public boolean dryRun() {
      return dryRun;
    }

    /**
     * Decides one dead letter and records it in the report.
     *
     * @param d the dead letter
     * @param superseded whether a later dead letter of the same record exists
     * @return the verdict
     */
    public Verdict decide(DeadLetter d, boolean superseded) {
      Verdict v;
      String detail = "";
      if (superseded) {
        v = Verdict.SUPERSEDED;
      } else if (!selected(d)) {
        v = Verdict.NOT_SELECTED;
      } else if (d.redrives() >= selection.maxRedrives()) {
        v = Verdict.LOOP_GUARD;
        detail = " (redriven " + d.redrives() + " times; stopped at the loop guard)";
      } else {
        Optional<Outcome> done =
            store == null || d.rawKey() == null
                ? Optional.empty()
                : store.getResult(keys.key(d.rawKey()));
        if (done.isPresent()) {
          v = Verdict.COMPLETED;
          detail =
              done.get() instanceof Outcome.Declined
                  ? " (a cached decline: siglo forget the key to run it again)"
                  : " (completed meanwhile)";
        } else if (redriven >= selection.limit()) {
          v = Verdict.NOT_SELECTED;
          detail = " (past the limit)";
        } else {
          redriven++;
          v = Verdict.REDRIVEN;
        }
      }
      counts.merge(v, 1, Integer::sum);
      if (v != Verdict.NOT_SELECTED || !detail.isEmpty()) {
        lines.add(
            (v == Verdict.REDRIVEN && dryRun ? "WOULD_REDRIVE" : v.name())
                + " "
                + d.id()
                + (d.rawKey() == null ? "" : " key " + d.rawKey())
                + " reason "
                + d.reason()
                + detail);
      }
      return v;
    }

    private boolean selected(DeadLetter d) {
      Selection s = selection;
      return (s.reasons().isEmpty() || s.reasons().contains(d.reason()))
          && (s.since() == null || !d.deadLetteredAt().isBefore(s.since()))
          && (s.until() == null || d.deadLetteredAt().isBefore(s.until()))
          && (s.rawKeys().isEmpty() || (d.rawKey() != null && s.rawKeys().contains(d.rawKey())));
    }

    /**
     * @return how many dead letters got each verdict
     */
    public Map<Verdict, Integer> counts() {
      return Collections.unmodifiableMap(counts);
    }

    /**
     * @return one line per dead letter decided (those outside the selection left out)
     */
    public List<String> lines() {
      return List.copyOf(lines);
    }

    /**
     * @param verdict a verdict
     * @return how many got it
     */
    public int count(Verdict verdict) {
      return counts.getOrDefault(verdict, 0);
    }
  }
}
