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
 * @param effectsWhileStoreDown effects written while the store was down, a second after it stopped
 *     (only handlers without a claim could write them), or -1 when no store outage
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
    long effectsWhileStoreDown,
    double seconds) {

  Verdict {
    deadLetters = new TreeMap<>(deadLetters);
    expectedDeadLetters = new TreeMap<>(expectedDeadLetters);
  }

  /**
   * The promise of the mode: in {@code tx} nothing lost and nothing twice; in {@code outside}
   * nothing lost (a crash between the effect and the record's completion may repeat an effect,
   * which is counted, not failed). In both: no effect for poison, the dead letters expected, and
   * the end reached.
   *
   * @return whether the scenario kept its promise
   */
  boolean passed() {
    boolean effectsOk =
        lost == 0
            && lostMessages == 0
            && unexpected == 0
            && (mode.equals("outside") || duplicated == 0);
    return effectsOk
        && reachedEnd
        && effectsWhileStoreDown <= 0
        && deadLetters.equals(expectedDeadLetters);
  }

  String describe() {
    return String.format(
        java.util.Locale.ROOT,
        "%s [%s]: %s; sent %d, keys %d, effects %d, lost %d (messages never finished %d),"
            + " duplicated %d, unexpected %d,"
            + " dead letters %s (expected %s), end reached %s, effects while the store was down"
            + " %d, %.0f s -> %s",
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
        effectsWhileStoreDown,
        seconds,
        passed() ? "PASS" : "FAIL");
  }
}
