package dev.siglo.kafka.internal;

import dev.siglo.consumer.metrics.SigloMetrics;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit side of the poll thread: one {@link PartitionProgress} per assigned partition, and the
 * commits of completed prefixes, asynchronously every commit interval (measured on the injected
 * {@link Time}) and synchronously on revoke and close. A failed asynchronous commit is sent again
 * at the next interval. Also samples each partition's lag for the metrics. Owned by the poll
 * thread; every method takes the consumer the poll thread owns.
 */
final class OffsetCommitter {
  private static final Logger log = LoggerFactory.getLogger(OffsetCommitter.class);
  private static final Duration SYNC_COMMIT_TIMEOUT = Duration.ofSeconds(10);

  private final Duration interval;
  private final Time time;
  private final SigloMetrics metrics;
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final Map<TopicPartition, Long> lags = new ConcurrentHashMap<>();
  private final Set<TopicPartition> lagGauges = ConcurrentHashMap.newKeySet();
  private long lastCommitNanos;

  /**
   * @param interval how often completed prefixes are committed
   * @param time the time the interval is measured on
   * @param metrics where lag gauges go, or null
   */
  OffsetCommitter(Duration interval, Time time, SigloMetrics metrics) {
    this.interval = interval;
    this.time = time;
    this.metrics = metrics;
    this.lastCommitNanos = time.nanoTime();
  }

  void assigned(Collection<TopicPartition> partitions) {
    partitions.forEach(tp -> progress.put(tp, new PartitionProgress()));
  }

  void removed(Collection<TopicPartition> partitions) {
    partitions.forEach(progress::remove);
  }

  /**
   * @return the partitions tracked now
   */
  Set<TopicPartition> partitions() {
    return Set.copyOf(progress.keySet());
  }

  /**
   * @param partition a partition
   * @return whether it is assigned (its records are tracked)
   */
  boolean owns(TopicPartition partition) {
    return progress.containsKey(partition);
  }

  /**
   * A polled record starts being tracked.
   *
   * @param partition its partition
   * @param offset its offset
   * @return false when it must be skipped: its partition is not assigned, or the same offset is
   *     still in flight (fetched again after a seek)
   */
  boolean received(TopicPartition partition, long offset) {
    PartitionProgress p = progress.get(partition);
    if (p == null || p.isIncomplete(offset)) {
      return false;
    }
    p.received(offset);
    return true;
  }

  /** A record reached atomic completion (processed, declined, dead-lettered). */
  void completed(TopicPartition partition, long offset) {
    PartitionProgress p = progress.get(partition);
    if (p != null) {
      p.completed(offset);
    }
  }

  /** Commits every moved commit point asynchronously, when the interval has passed. */
  void commitIfDue(Consumer<byte[], byte[]> c) {
    long now = time.nanoTime();
    if (now - lastCommitNanos < interval.toNanos()) {
      return;
    }
    lastCommitNanos = now;
    sampleLag(c);
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    progress.forEach(
        (tp, p) -> {
          long point = p.uncommitted();
          if (point >= 0) {
            offsets.put(tp, new OffsetAndMetadata(point));
            p.markCommitted(point);
          }
        });
    if (!offsets.isEmpty()) {
      c.commitAsync(offsets, (committed, e) -> onAsyncCommit(committed, e));
    }
  }

  /** Runs on the poll thread, inside a later poll: a failed commit is sent again next interval. */
  private void onAsyncCommit(Map<TopicPartition, OffsetAndMetadata> committed, Exception e) {
    if (e == null) {
      return;
    }
    log.warn("async commit of {} failed: {}; will retry", committed, e.toString());
    committed.forEach(
        (tp, o) -> {
          PartitionProgress p = progress.get(tp);
          if (p != null) {
            p.commitFailed(o.offset());
          }
        });
  }

  /** Commits the commit points of {@code partitions} now (revoke, close); a wake-up is retried. */
  void commitSync(Consumer<byte[], byte[]> c, Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      PartitionProgress p = progress.get(tp);
      if (p != null && p.commitPoint() >= 0) {
        offsets.put(tp, new OffsetAndMetadata(p.commitPoint()));
      }
    }
    if (offsets.isEmpty()) {
      return;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        c.commitSync(offsets, SYNC_COMMIT_TIMEOUT);
        offsets.forEach((tp, o) -> progress.get(tp).markCommitted(o.offset()));
        return;
      } catch (WakeupException e) {
        // a stop request woke the consumer; commit again
      } catch (RuntimeException e) {
        log.warn("synchronous commit of {} failed: {}", offsets, e.toString());
        return;
      }
    }
  }

  /** Samples each partition's lag on the poll thread; gauges read the samples. */
  private void sampleLag(Consumer<byte[], byte[]> c) {
    if (metrics == null) {
      return;
    }
    for (TopicPartition tp : progress.keySet()) {
      c.currentLag(tp).ifPresent(lag -> lags.put(tp, lag));
      if (lagGauges.add(tp)) {
        metrics.lag(tp.topic(), tp.partition(), () -> lags.getOrDefault(tp, 0L));
      }
    }
  }
}
