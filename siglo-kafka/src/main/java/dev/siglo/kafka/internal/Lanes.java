package dev.siglo.kafka.internal;

import dev.siglo.kafka.Ordering;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Ordering: each record belongs to a lane (its record key within its partition for {@link
 * Ordering#KEY}, its partition for {@link Ordering#PARTITION}, itself for {@link
 * Ordering#UNORDERED}); a lane runs one record at a time in offset order. A record waiting for a
 * retry keeps its lane busy, so later records of the lane wait behind it while other lanes flow.
 * Owned by the poll thread.
 */
final class Lanes {
  /**
   * The queue of a busy lane that has nothing waiting: shared and never added to, so a lane gets a
   * queue of its own only when a second record of it arrives while the first runs.
   */
  private static final ArrayDeque<Work> NOTHING_WAITING = new ArrayDeque<>(1);

  private final Ordering ordering;
  private final Map<LaneKey, ArrayDeque<Work>> waiting = new HashMap<>();
  private final ArrayDeque<Work> ready = new ArrayDeque<>();
  private final PriorityQueue<Work> delayed =
      new PriorityQueue<>((a, b) -> Long.compare(a.readyAtNanos, b.readyAtNanos));
  private int queued;

  Lanes(Ordering ordering) {
    this.ordering = ordering;
  }

  /**
   * @param r a polled record
   * @param partition its partition
   * @return a unit of work for it, in its lane
   */
  Work workFor(ConsumerRecord<byte[], byte[]> r, TopicPartition partition) {
    return new Work(r, partition, LaneKey.of(ordering, partition, r));
  }

  /** A newly polled record: ready when its lane is idle, else queued behind it. */
  void add(Work w) {
    queued++;
    ArrayDeque<Work> lane = waiting.putIfAbsent(w.lane, NOTHING_WAITING);
    if (lane == null) {
      ready.add(w);
    } else if (lane == NOTHING_WAITING) {
      ArrayDeque<Work> queue = new ArrayDeque<>(4);
      queue.add(w);
      waiting.put(w.lane, queue);
    } else {
      lane.add(w);
    }
  }

  /** The record reached completion: the next one of its lane becomes ready. */
  void done(Work w) {
    queued--;
    ArrayDeque<Work> lane = waiting.get(w.lane);
    if (lane == null) {
      return;
    }
    Work next = lane == NOTHING_WAITING ? null : lane.poll();
    if (next == null) {
      waiting.remove(w.lane);
    } else {
      ready.add(next);
    }
  }

  /** The record will be retried after a delay; its lane stays busy. */
  void retryLater(Work w, long delayNanos, long nowNanos) {
    w.readyAtNanos = nowNanos + delayNanos;
    delayed.add(w);
  }

  /**
   * @return the next record to run now, or null
   */
  Work nextReady(long nowNanos) {
    Work due = delayed.peek();
    if (due != null && due.readyAtNanos <= nowNanos) {
      return delayed.poll();
    }
    return ready.poll();
  }

  /**
   * @return nanoseconds until the next delayed record is due, or -1
   */
  long nanosUntilNextDue(long nowNanos) {
    Work due = delayed.peek();
    return due == null ? -1 : Math.max(0, due.readyAtNanos - nowNanos);
  }

  /** Drops every record of the partitions that are not started yet (revoked partitions). */
  void removePartitions(Set<TopicPartition> partitions) {
    queued -= removeFrom(ready.iterator(), partitions);
    queued -= removeFrom(delayed.iterator(), partitions);
    Iterator<Map.Entry<LaneKey, ArrayDeque<Work>>> lanes = waiting.entrySet().iterator();
    while (lanes.hasNext()) {
      ArrayDeque<Work> lane = lanes.next().getValue();
      queued -= removeFrom(lane.iterator(), partitions);
    }
    waiting
        .entrySet()
        .removeIf(e -> e.getValue().isEmpty() && partitions.contains(e.getKey().partition()));
  }

  private static int removeFrom(Iterator<Work> it, Set<TopicPartition> partitions) {
    int removed = 0;
    while (it.hasNext()) {
      if (partitions.contains(it.next().partition)) {
        it.remove();
        removed++;
      }
    }
    return removed;
  }

  /**
   * @return records held here or running (queued, ready, delayed, in flight)
   */
  int buffered() {
    return queued;
  }
}
