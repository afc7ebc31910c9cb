package dev.siglo.faults;

import java.util.Map;

/** Reads a finished scenario's history and counts what was lost, repeated or unexpected. */
final class Checker {
  private Checker() {}

  static Verdict check(
      Run run,
      String mode,
      String faults,
      Manifest manifest,
      Map<String, Integer> deadLetters,
      boolean reachedEnd,
      double seconds) {
    String id = run.id;
    Map<String, Integer> perKey = run.effects.perKey(id);
    int lost = 0;
    int duplicated = 0;
    for (String key : manifest.effectKeys) {
      int n = perKey.getOrDefault(key, 0);
      if (n == 0) {
        lost++;
      } else if (n > 1) {
        duplicated++;
      }
    }
    java.util.Set<String> seen = run.effects.seen(id);
    int lostMessages = 0;
    for (String c : manifest.coordinates) {
      if (!seen.contains(c)) {
        lostMessages++;
      }
    }
    long total = 0;
    long unexpected = 0;
    for (Map.Entry<String, Integer> e : perKey.entrySet()) {
      total += e.getValue();
      if (!manifest.effectKeys.contains(e.getKey())) {
        unexpected += e.getValue();
      }
    }
    return new Verdict(
        id.substring(0, id.indexOf('/')),
        mode,
        faults + run.notes,
        manifest.items.size(),
        manifest.effectKeys.size(),
        total,
        lost,
        lostMessages,
        duplicated,
        unexpected,
        deadLetters,
        manifest.expectedDeadLetters,
        reachedEnd,
        run.noCrashes,
        run.outage,
        seconds);
  }
}
