package dev.siglo.kafka.internal;

import java.util.TreeSet;

/**
 * The offsets of one partition received but not yet atomically completed, and the commit point: the
 * lowest incomplete offset, or one past the highest received when nothing is incomplete. Owned by
 * the poll thread.
 */
final class PartitionProgress {
  private final TreeSet<Long> incomplete = new TreeSet<>();
  private long highestReceived = -1;
  private long committed = -1;

  void received(long offset) {
    incomplete.add(offset);
    highestReceived = Math.max(highestReceived, offset);
  }

  void completed(long offset) {
    incomplete.remove(offset);
  }

  boolean isIncomplete(long offset) {
    return incomplete.contains(offset);
  }

  /**
   * @return the offset to commit, or -1 when nothing was received
   */
  long commitPoint() {
    if (highestReceived < 0) {
      return -1;
    }
    return incomplete.isEmpty() ? highestReceived + 1 : incomplete.first();
  }

  /**
   * @return the commit point when it moved past the last commit, else -1
   */
  long uncommitted() {
    long point = commitPoint();
    return point > committed ? point : -1;
  }

  void markCommitted(long offset) {
    committed = Math.max(committed, offset);
  }

  /**
   * An asynchronous commit of {@code offset} failed (the broker was unreachable, say): unless a
   * later commit went out since, the commit point counts as uncommitted again, so the next interval
   * sends it again instead of leaving the group's offset behind until new records complete.
   */
  void commitFailed(long offset) {
    if (committed == offset) {
      committed = -1;
    }
  }

  int pending() {
    return incomplete.size();
  }
}
