package dev.siglo.kafka.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The records a share consumer holds: acquired from the broker and not yet finally acknowledged. It
 * knows which of them the consumer may acknowledge now (a record is acknowledgeable once a poll
 * returned it, and stops being so when it is renewed, until a poll returns it again), which wait
 * for a worker, which wait out a backoff, and which are due for renewal. Used by the poll thread
 * only.
 */
final class ShareInFlight {
  /** Where a held record is. */
  enum State {
    /** Waiting for a worker. */
    QUEUED,
    /** A worker runs it. */
    RUNNING,
    /** Waiting out a backoff, then released ({@link Held#afterWait}) or run again. */
    WAITING,
    /** Finished; its final acknowledgement waits for the record to come back from a renewal. */
    DONE
  }

  /** One held record. */
  static final class Held {
    final Work work;
    ConsumerRecord<byte[], byte[]> record;
    State state = State.QUEUED;
    boolean acknowledgeable = true;
    long renewedAt;
    long waitUntil;
    AcknowledgeType afterWait;
    AcknowledgeType pending;

    Held(Work work, long now) {
      this.work = work;
      this.record = work.record;
      this.renewedAt = now;
    }

    int deliveryCount() {
      return record.deliveryCount().map(Short::intValue).orElse(1);
    }

    @Override
    public String toString() {
      return work.partition + "@" + record.offset() + " (delivery " + deliveryCount() + ")";
    }
  }

  private record Id(String topic, int partition, long offset) {
    static Id of(ConsumerRecord<?, ?> r) {
      return new Id(r.topic(), r.partition(), r.offset());
    }
  }

  private final Map<Id, Held> held = new LinkedHashMap<>();
  private final Deque<Held> queue = new ArrayDeque<>();

  /**
   * A record a poll returned: a new one is queued; one held already (back from a renewal) becomes
   * acknowledgeable again.
   *
   * @param record the record
   * @param now the time, in nanoseconds
   * @return the held record when it came back with a final acknowledgement pending, else null
   */
  Held received(ConsumerRecord<byte[], byte[]> record, long now) {
    Id id = Id.of(record);
    Held h = held.get(id);
    if (h == null) {
      h =
          new Held(
              new Work(record, new TopicPartition(record.topic(), record.partition()), null), now);
      held.put(id, h);
      queue.add(h);
      return null;
    }
    h.record = record;
    h.acknowledgeable = true;
    return h.pending != null ? h : null;
  }

  /**
   * @return the next queued record, or null
   */
  Held nextQueued() {
    return queue.poll();
  }

  /**
   * Puts a record back at the head of the queue.
   *
   * @param h the record
   */
  void requeue(Held h) {
    h.state = State.QUEUED;
    queue.addFirst(h);
  }

  /**
   * @param work a finished record's work
   * @return its held record, or null when it is no longer held (its acquisition was lost)
   */
  Held of(Work work) {
    Held h = held.get(Id.of(work.record));
    return h != null && h.work == work ? h : null;
  }

  /**
   * @param h a record finally acknowledged, or given up
   */
  void remove(Held h) {
    held.remove(Id.of(h.record));
    queue.remove(h);
  }

  /**
   * @param topic the topic
   * @param partition the partition
   * @param offset the offset
   * @return the held record, or null
   */
  Held find(String topic, int partition, long offset) {
    return held.get(new Id(topic, partition, offset));
  }

  /**
   * @return how many records are held
   */
  int size() {
    return held.size();
  }

  /**
   * @return whether nothing is held
   */
  boolean isEmpty() {
    return held.isEmpty();
  }

  /**
   * @return whether every record the last poll returned was acknowledged or renewed since, so the
   *     consumer may poll again
   */
  boolean mayPoll() {
    for (Held h : held.values()) {
      if (h.acknowledgeable) {
        return false;
      }
    }
    return true;
  }

  /**
   * @return whether some renewed record has not come back yet
   */
  boolean awaitingReturn() {
    for (Held h : held.values()) {
      if (!h.acknowledgeable) {
        return true;
      }
    }
    return false;
  }

  /**
   * The acknowledgeable, unfinished records to renew now: all of them as soon as one is due, so one
   * poll brings them all back.
   *
   * @param now the time, in nanoseconds
   * @param interval how long after its acquisition or last renewal a record is due
   * @return the records to renew; empty when none is due
   */
  List<Held> dueForRenewal(long now, long interval) {
    boolean due = false;
    List<Held> renew = new ArrayList<>();
    for (Held h : held.values()) {
      if (h.acknowledgeable && h.state != State.DONE) {
        renew.add(h);
        due |= now - h.renewedAt >= interval;
      }
    }
    return due ? renew : List.of();
  }

  /**
   * Renewed records that never came back: their renewal was lost, so their acquisition has ended.
   *
   * @param now the time, in nanoseconds
   * @param lockNanos the acquisition lock's duration
   * @return the records given up
   */
  List<Held> expired(long now, long lockNanos) {
    List<Held> gone = new ArrayList<>();
    for (Held h : held.values()) {
      if (!h.acknowledgeable && now - h.renewedAt > lockNanos) {
        gone.add(h);
      }
    }
    gone.forEach(this::remove);
    return gone;
  }

  /** Sends one acknowledgement to the client; throws {@link IllegalStateException} if refused. */
  @FunctionalInterface
  interface Acknowledger {
    void acknowledge(Held h, AcknowledgeType type);
  }

  /**
   * Answers the renewed records that the client took back in flight although no poll returned them
   * (the client then refuses the next poll until they are acknowledged): each gets its pending
   * final acknowledgement (and leaves) or, still running, another renewal. A record the client
   * still has renewing refuses the acknowledgement and stays as it is.
   *
   * @param client sends an acknowledgement; throws {@link IllegalStateException} for a record not
   *     in flight
   * @param now the time, in nanoseconds
   * @return the records that were in flight again
   */
  List<Held> reclaim(Acknowledger client, long now) {
    List<Held> reclaimed = new ArrayList<>();
    for (Held h : all()) {
      if (h.acknowledgeable) {
        continue;
      }
      try {
        client.acknowledge(h, h.pending != null ? h.pending : AcknowledgeType.RENEW);
      } catch (IllegalStateException stillRenewing) {
        continue;
      }
      reclaimed.add(h);
      if (h.pending != null) {
        remove(h);
      } else {
        h.renewedAt = now;
      }
    }
    return reclaimed;
  }

  /**
   * @param now the time, in nanoseconds
   * @return the waiting records whose backoff is over
   */
  List<Held> doneWaiting(long now) {
    List<Held> ready = new ArrayList<>();
    for (Held h : held.values()) {
      if (h.state == State.WAITING && now - h.waitUntil >= 0) {
        ready.add(h);
      }
    }
    return ready;
  }

  /**
   * @param now the time, in nanoseconds
   * @param interval the renewal interval
   * @return nanoseconds until the next renewal or backoff is due (at most {@code interval})
   */
  long nanosToNextDeadline(long now, long interval) {
    long next = interval;
    for (Held h : held.values()) {
      if (h.acknowledgeable && h.state != State.DONE) {
        next = Math.min(next, h.renewedAt + interval - now);
      }
      if (h.state == State.WAITING) {
        next = Math.min(next, h.waitUntil - now);
      }
    }
    return Math.max(0, next);
  }

  /**
   * @return the held records, in the order they were received
   */
  List<Held> all() {
    return new ArrayList<>(held.values());
  }

  /**
   * @param state a state
   * @return how many held records are in it
   */
  int count(State state) {
    int n = 0;
    for (Held h : held.values()) {
      if (h.state == state) {
        n++;
      }
    }
    return n;
  }
}
