package dev.siglo.consumer.store;

import java.util.Arrays;

/**
 * The in-memory store's completion order: a FIFO of (key, sequence) pairs held in two growable ring
 * arrays, so a completion costs no object of its own (a queue node and a pair object per record
 * were a third of the store's retained objects, which the garbage collector copies while the
 * records live). Only {@link #poll} allocates, on the eviction path. Thread-safe.
 */
final class CompletionLog {
  /** One completion taken off the log. */
  record Completion(String key, long sequence) {}

  private String[] keys = new String[16];
  private long[] sequences = new long[16];
  private int head;
  private int size;

  /**
   * Appends a completion.
   *
   * @return completions held now
   */
  synchronized int add(String key, long sequence) {
    if (size == keys.length) {
      grow();
    }
    int tail = (head + size) & (keys.length - 1);
    keys[tail] = key;
    sequences[tail] = sequence;
    return ++size;
  }

  /**
   * @return the oldest completion, removed, or null when the log is empty
   */
  synchronized Completion poll() {
    if (size == 0) {
      return null;
    }
    Completion oldest = new Completion(keys[head], sequences[head]);
    removeHead();
    return oldest;
  }

  /**
   * Removes the oldest completions for which {@code stale} holds, up to the first that is not.
   *
   * @param stale whether a completion no longer names its key's current record
   */
  synchronized void dropStale(StalePair stale) {
    while (size > 0 && stale.test(keys[head], sequences[head])) {
      removeHead();
    }
  }

  /**
   * @return completions held
   */
  synchronized int size() {
    return size;
  }

  /** Empties the log. */
  synchronized void clear() {
    Arrays.fill(keys, null);
    head = 0;
    size = 0;
  }

  private void removeHead() {
    keys[head] = null;
    head = (head + 1) & (keys.length - 1);
    size--;
  }

  private void grow() {
    int n = keys.length;
    String[] k = new String[n * 2];
    long[] s = new long[n * 2];
    for (int i = 0; i < size; i++) {
      int from = (head + i) & (n - 1);
      k[i] = keys[from];
      s[i] = sequences[from];
    }
    keys = k;
    sequences = s;
    head = 0;
  }

  /** Whether a (key, sequence) pair is stale. */
  @FunctionalInterface
  interface StalePair {
    boolean test(String key, long sequence);
  }
}
