package dev.siglo.faults;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * What a scenario sends: every message (its idempotency key or none, its payload) and what must
 * come of it: keys that must have exactly one effect, and dead letters by reason.
 */
final class Manifest {
  /**
   * One message.
   *
   * @param key the idempotency key header or attribute, or null for none
   * @param payload the body
   * @param copy which delivery of its key this is (0-based)
   */
  record Item(String key, byte[] payload, int copy) {}

  final List<Item> items = new ArrayList<>();

  /** Where each message landed (Kafka topic-partition@offset, SQS message id), once sent. */
  final Set<String> coordinates = new HashSet<>();

  final Set<String> effectKeys = new HashSet<>();
  final Map<String, Integer> expectedDeadLetters = new HashMap<>();
  int slow;

  private static byte[] json(String key, int seq, boolean slow) {
    return ("{\"key\":\"" + key + "\",\"seq\":" + seq + (slow ? ",\"slow\":true" : "") + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code keys} keys, each sent {@code copies} times with the same payload, in random order.
   *
   * @param slowEvery every n-th key has a slow handler (0: none)
   */
  static Manifest duplicates(String prefix, int keys, int copies, int slowEvery, long seed) {
    Manifest m = new Manifest();
    for (int k = 0; k < keys; k++) {
      String key = prefix + "-" + k;
      boolean slow = slowEvery > 0 && k % slowEvery == 0;
      m.slow += slow ? 1 : 0;
      m.effectKeys.add(key);
      for (int c = 0; c < copies; c++) {
        m.items.add(new Item(key, json(key, k, slow), c));
      }
    }
    Collections.shuffle(m.items, new Random(seed));
    return m;
  }

  /**
   * Duplicates plus 1% each of undecodable payloads, missing keys, hostile keys (huge, control
   * characters) and keys reused with another payload.
   */
  static Manifest poisonMix(String prefix, int keys, int copies, long seed) {
    return poisonMix(prefix, keys, copies, 0, seed);
  }

  /**
   * {@link #poisonMix(String, int, int, long)} with a slow handler for every {@code slowEvery}-th
   * key (0: none).
   */
  static Manifest poisonMix(String prefix, int keys, int copies, int slowEvery, long seed) {
    Manifest m = duplicates(prefix, keys, copies, slowEvery, seed);
    int each = Math.max(1, keys * copies / 100);
    for (int i = 0; i < each; i++) {
      m.items.add(
          new Item(prefix + "-poison-" + i, "{not json".getBytes(StandardCharsets.UTF_8), 0));
      m.items.add(new Item(null, json(prefix + "-nokey-" + i, i, false), 0));
      String hostile = i % 2 == 0 ? "h".repeat(5_000) + i : prefix + "-bell\u0007-" + i;
      m.items.add(new Item(hostile, json(prefix + "-hostile-" + i, i, false), 0));
      String reused = prefix + "-reused-" + i;
      m.effectKeys.add(reused);
      m.items.add(new Item(reused, json(reused, 1, false), 0));
      m.items.add(new Item(reused, json(reused, 2, false), 1));
    }
    m.expectedDeadLetters.put("POISON_PAYLOAD", each);
    m.expectedDeadLetters.put("MISSING_KEY", each);
    m.expectedDeadLetters.put("INVALID_KEY", each);
    m.expectedDeadLetters.put("KEY_REUSE", each);
    Collections.shuffle(m.items, new Random(seed + 1));
    return m;
  }

  /**
   * Duplicates plus {@code crashers} keys, sent once each, whose handler halts the consumer's JVM
   * before its effect: each must end on the dead-letter destination as {@code CRASH_LOOP} and have
   * no effect.
   */
  static Manifest crashers(String prefix, int keys, int copies, int crashers, long seed) {
    Manifest m = duplicates(prefix, keys, copies, 0, seed);
    for (int i = 0; i < crashers; i++) {
      String key = prefix + "-crasher-" + i;
      m.items.add(
          new Item(
              key,
              ("{\"key\":\"" + key + "\",\"seq\":" + i + ",\"halt\":true}")
                  .getBytes(StandardCharsets.UTF_8),
              0));
    }
    m.expectedDeadLetters.put("CRASH_LOOP", crashers);
    Collections.shuffle(m.items, new Random(seed + 2));
    return m;
  }
}
