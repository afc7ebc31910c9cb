package dev.siglo.kafka.internal;

/**
 * The offsets of one partition received but not yet atomically completed, and the commit point: the
 * lowest incomplete offset, or one past the highest received when nothing is incomplete. Owned by
 * the poll thread.
 *
 * <p>Offsets are kept in a ring of primitive arrays in offset order, with a done flag each: a
 * record is appended when received (polls come in offset order; an offset fetched again after a
 * seek is inserted in its place), flagged when completed, and dropped once every offset before it
 * is done too. No boxing and no tree node per record.
 */
final class PartitionProgress {
  private long[] offsets = new long[64];
  private boolean[] done = new boolean[64];
  private int head;
  private int size;
  private int pending;
  private long highestReceived = -1;
  private long committed = -1;

  private int at(int index) {
    return (head + index) & (offsets.length - 1);
  }

  void received(long offset) {
    highestReceived = Math.max(highestReceived, offset);
    if (size == offsets.length) {
      grow();
    }
    if (size == 0 || offsets[at(size - 1)] < offset) {
      int slot = at(size++);
      offsets[slot] = offset;
      done[slot] = false;
      pending++;
      return;
    }
    int found = search(offset);
    if (found >= 0) {
      if (done[at(found)]) {
        done[at(found)] = false; // fetched again before its slot was dropped
        pending++;
      }
      return;
    }
    int insert = -found - 1;
    for (int i = size; i > insert; i--) {
      offsets[at(i)] = offsets[at(i - 1)];
      done[at(i)] = done[at(i - 1)];
    }
    offsets[at(insert)] = offset;
    done[at(insert)] = false;
    size++;
    pending++;
  }

  void completed(long offset) {
    int found = search(offset);
    if (found < 0 || done[at(found)]) {
      return;
    }
    done[at(found)] = true;
    pending--;
    while (size > 0 && done[head]) {
      head = at(1);
      size--;
    }
  }

  boolean isIncomplete(long offset) {
    int found = search(offset);
    return found >= 0 && !done[at(found)];
  }

  /**
   * @return the offset to commit, or -1 when nothing was received
   */
  long commitPoint() {
    if (highestReceived < 0) {
      return -1;
    }
    return size == 0 ? highestReceived + 1 : offsets[head];
  }

  /** Binary search by logical index: the index, or {@code -(insertion point) - 1}. */
  private int search(long offset) {
    int low = 0;
    int high = size - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      long value = offsets[at(mid)];
      if (value < offset) {
        low = mid + 1;
      } else if (value > offset) {
        high = mid - 1;
      } else {
        return mid;
      }
    }
    return -(low + 1);
  }

  private void grow() {
    long[] o = new long[offsets.length * 2];
    boolean[] d = new boolean[offsets.length * 2];
    for (int i = 0; i < size; i++) {
      o[i] = offsets[at(i)];
      d[i] = done[at(i)];
    }
    offsets = o;
    done = d;
    head = 0;
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
    return pending;
  }
}
