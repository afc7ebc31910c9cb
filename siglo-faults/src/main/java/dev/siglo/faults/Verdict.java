package dev.siglo.faults;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the checker found after one scenario, from the final history: the effects table, the
 * dead-letter destination, the committed offsets or the queue.
 *
 * @param scenario the scenario
 * @param mode {@code tx} (effect and record in one PostgreSQL transaction) or {@code outside}
 *     (effect auto-committed, records in Redis)
 * @param faults what was injected, in words
 * @param sent messages sent
 * @param keys distinct keys that must have exactly one effect
 * @param effects effects written in all
 * @param lost keys without an effect
 * @param lostMessages messages the engine never finished (their offset was committed, or they were
 *     deleted, without processing), even if another copy of their key had the effect
 * @param duplicated keys with more than one effect
 * @param unexpected effects of messages that must not have any (poison, missing or hostile keys)
 * @param deadLetters dead letters by reason
 * @param expectedDeadLetters dead letters that must be there, by reason
 * @param reachedEnd whether the committed offsets reached the end (Kafka) or the queue is empty
 *     (SQS)
 * @param noCrashes no consumer crashed or froze in the scenario, so a duplicate fails mode outside
 *     too
 * @param outage what the consumers did while the store was down, or {@code null} when the scenario
 *     has no store outage
 * @param seconds how long the run took
 */
record Verdict(
    String scenario,
    String mode,
    String faults,
    int sent,
    int keys,
    long effects,
    int lost,
    int lostMessages,
    int duplicated,
    long unexpected,
    Map<String, Integer> deadLetters,
    Map<String, Integer> expectedDeadLetters,
    boolean reachedEnd,
    boolean noCrashes,
    Outage outage,
    double seconds) {

  /**
   * What the consumers did while their store was stopped.
   *
   * @param effectsWhileDown effects written while the store was down, a second after it stopped
   *     (only handlers without a claim could write them)
   * @param pausedSeconds how long the consumers' intake was paused in all (0: it never paused)
   * @param storeCalls idempotency-store calls the consumers made while paused (probes, renewals and
   *     releases of handlers that were running when it stopped)
   * @param resumedAfterSeconds seconds from the store's restart to the last consumer's resume
   * @param workers the consumers' worker threads in all (each may have held a claim when the store
   *     stopped)
   */
  record Outage(
      long effectsWhileDown,
      double pausedSeconds,
      long storeCalls,
      double resumedAfterSeconds,
      int workers) {
    /** Store calls allowed per worker busy when the store stopped: its claim, step, release. */
    static final int CALLS_PER_WORKER = 4;

    /** A resume later than this after the store is back fails the scenario. */
    static final double MAX_RESUME_SECONDS = 15;

    /**
     * Fail closed, and pause rather than spend deliveries: no effect while the store is down, the
     * intake paused, no more than one store call per paused second (the probes are at most 2 s
     * apart) plus {@value #CALLS_PER_WORKER} per worker (the work in flight when it stopped), and
     * intake resumed within {@value #MAX_RESUME_SECONDS} s of the store's return.
     *
     * @return whether the consumers behaved so
     */
    boolean passed() {
      return effectsWhileDown == 0
          && pausedSeconds > 0
          && storeCalls <= pausedSeconds + (double) CALLS_PER_WORKER * workers
          && resumedAfterSeconds <= MAX_RESUME_SECONDS;
    }
  }

  Verdict {
    deadLetters = new TreeMap<>(deadLetters);
    expectedDeadLetters = new TreeMap<>(expectedDeadLetters);
  }

  /**
   * The promise of the mode: in {@code tx} nothing lost and nothing twice; in {@code outside}
   * nothing lost (a crash between the effect and the record's completion may repeat an effect,
   * which is counted, not failed), and nothing twice when no consumer crashed or froze. In both: no
   * effect for poison, the dead letters expected, and the end reached.
   *
   * @return whether the scenario kept its promise
   */
  boolean passed() {
    boolean effectsOk =
        lost == 0
            && lostMessages == 0
            && unexpected == 0
            && (duplicated == 0 || (mode.equals("outside") && !noCrashes));
    return effectsOk
        && reachedEnd
        && (outage == null || outage.passed())
        && deadLetters.equals(expectedDeadLetters);
  }

  String describe() {
    return String.format(
        java.util.Locale.ROOT,
        "%s [%s]: %s; sent %d, keys %d, effects %d, lost %d (messages never finished %d),"
            + " duplicated %d, unexpected %d,"
            + " dead letters %s (expected %s), end reached %s, store outage %s, %.0f s -> %s",
        scenario,
        mode,
        faults,
        sent,
        keys,
        effects,
        lost,
        lostMessages,
        duplicated,
        unexpected,
        deadLetters,
        expectedDeadLetters,
        reachedEnd,
        outage == null ? "none" : outage,
        seconds,
        passed() ? "PASS" : "FAIL");
  }
}
