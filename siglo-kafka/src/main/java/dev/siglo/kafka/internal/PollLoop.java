package dev.siglo.kafka.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll thread: the only thread that touches the {@link KafkaConsumer}. It polls, hands records
 * to workers lane by lane ({@link Lanes}), takes their answers from a queue, tracks per-partition
 * commit points ({@link PartitionProgress}), commits completed prefixes (asynchronously every
 * commit interval, synchronously on revoke and close), pauses fetching when too much is buffered,
 * and stops with an error the user sees when something fatal happens.
 */
public final class PollLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(PollLoop.class);

  private final KafkaRuntimeConfig settings;
  private final MessageProcessor processor;
  private final ExecutorService workers;
  private final DeadLetterPublisher deadLetters;
  private final CompletableFuture<Void> termination;

  /** Records handed to the workers and not started yet, per worker at most. */
  static final int MAX_PENDING_PER_WORKER = 8;

  private final LinkedBlockingQueue<Completion> completions = new LinkedBlockingQueue<>();
  private final ConcurrentLinkedQueue<Work> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger runningWorkers = new AtomicInteger();
  private final Set<TopicPartition> revoking = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, PartitionProgress> progress = new HashMap<>();
  private final Map<TopicPartition, Integer> inFlightByPartition = new HashMap<>();
  private final Lanes lanes;
  private volatile boolean stopRequested;
  private volatile Duration closeTimeout = Duration.ofSeconds(30);
  private volatile KafkaConsumer<byte[], byte[]> consumer;
  private int inFlight;
  private final java.util.concurrent.atomic.AtomicInteger inFlightGauge =
      new java.util.concurrent.atomic.AtomicInteger();
  private final Map<TopicPartition, Long> lags = new java.util.concurrent.ConcurrentHashMap<>();
  private final Set<TopicPartition> lagGauges = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private boolean paused;
  private long lastCommitNanos = System.nanoTime();

  /**
   * @param settings the settings
   * @param processor the engine
   * @param workers the worker pool (named threads, {@code concurrency} of them)
   * @param termination completed when the loop ends: normally on close, exceptionally on a fatal
   *     error
   */
  public PollLoop(
      KafkaRuntimeConfig settings,
      MessageProcessor processor,
      ExecutorService workers,
      CompletableFuture<Void> termination) {
    this.settings = settings;
    this.processor = processor;
    this.workers = workers;
    this.termination = termination;
    this.lanes = new Lanes(settings.ordering());
    this.deadLetters =
        new DeadLetterPublisher(
            settings.clientProperties(),
            settings.deadLetterTopic(),
            settings.groupId(),
            settings.deadLetterTimeout().toMillis());
  }

  /**
   * Asks the loop to stop: it stops dispatching, waits up to {@code timeout} for running records,
   * commits what completed and closes the consumer. Safe from any thread; idempotent.
   *
   * @param timeout the longest wait for running records
   */
  public void requestStop(Duration timeout) {
    closeTimeout = timeout;
    stopRequested = true;
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  @Override
  public void run() {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            settings.clientProperties(),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer = c;
      if (settings.metrics() != null) {
        settings
            .metrics()
            .inFlight("kafka", String.join(",", settings.topics()), inFlightGauge::get);
      }
      subscribe(c);
      while (!stopRequested) {
        loopOnce(c);
      }
      shutdown(c);
      termination.complete(null);
    } catch (WakeupException e) {
      if (!stopRequested) {
        termination.completeExceptionally(e);
      }
      termination.complete(null);
    } catch (Throwable t) {
      log.error(
          "Siglo Kafka consumer of group '{}' stopped: {}", settings.groupId(), t.toString(), t);
      termination.completeExceptionally(t);
    } finally {
      workers.shutdownNow();
      deadLetters.close();
    }
  }

  private void subscribe(KafkaConsumer<byte[], byte[]> c) {
    ConsumerRebalanceListener listener = new Rebalance();
    if (settings.pattern() != null) {
      c.subscribe(settings.pattern(), listener);
      return;
    }
    long deadline = System.nanoTime() + settings.topicCheckTimeout().toNanos();
    Set<String> missing = new HashSet<>(settings.topics());
    while (true) {
      missing.removeAll(c.listTopics(Duration.ofSeconds(5)).keySet());
      if (missing.isEmpty()) {
        break;
      }
      if (stopRequested) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new SigloConfigurationException(
            "topic(s) "
                + missing
                + " do not exist (checked for "
                + settings.topicCheckTimeout()
                + ")");
      }
      pause(Duration.ofMillis(500));
    }
    c.subscribe(settings.topics(), listener);
  }

  private void loopOnce(KafkaConsumer<byte[], byte[]> c) {
    drainCompletions(0);
    dispatch();
    commitIfDue(c);
    applyBackpressure(c);
    ConsumerRecords<byte[], byte[]> records;
    try {
      if (lanes.buffered() > inFlight) {
        // Records are waiting for a worker, for their lane or for a retry's delay: only a
        // completion (or the delay) moves them, so wait for completions here rather than inside
        // poll, where a finished worker could not wake this thread; then fetch without blocking.
        drainCompletions(pollMillis());
        dispatch();
        records = c.poll(Duration.ZERO);
      } else {
        records = c.poll(Duration.ofMillis(pollMillis()));
      }
    } catch (WakeupException e) {
      return;
    }
    for (ConsumerRecord<byte[], byte[]> r : records) {
      PartitionProgress p = progress.get(new TopicPartition(r.topic(), r.partition()));
      if (p == null || p.isIncomplete(r.offset())) {
        continue;
      }
      p.received(r.offset());
      lanes.add(new Work(r, lanes.laneOf(r)));
    }
    dispatch();
  }

  private long pollMillis() {
    long due = lanes.nanosUntilNextDue(System.nanoTime());
    long idle = inFlight > 0 ? 20 : 100;
    return due < 0 ? idle : Math.max(1, Math.min(idle, TimeUnit.NANOSECONDS.toMillis(due)));
  }

  /**
   * Hands ready records to the workers through a shared queue; workers take the next record as soon
   * as they are free, so a slow record never holds back the records handed over after it, and
   * starting a record costs no thread hand-off while workers are busy. At most {@link
   * #MAX_PENDING_PER_WORKER} records per worker wait there, so lane and retry decisions stay fresh.
   */
  private void dispatch() {
    long now = System.nanoTime();
    int limit = settings.concurrency() * MAX_PENDING_PER_WORKER;
    while (inFlight < limit && !stopRequested) {
      Work w = lanes.nextReady(now);
      if (w == null) {
        break;
      }
      inFlight++;
      inFlightByPartition.merge(w.partition, 1, Integer::sum);
      w.dispatchedAttempt = w.attempt;
      pending.add(w);
    }
    while (!pending.isEmpty() && tryStartWorker()) {
      workers.execute(this::workLoop);
    }
  }

  private boolean tryStartWorker() {
    while (true) {
      int running = runningWorkers.get();
      if (running >= settings.concurrency()) {
        return false;
      }
      if (runningWorkers.compareAndSet(running, running + 1)) {
        return true;
      }
    }
  }

  /** Runs on a worker thread: takes records until none is left, then re-checks before leaving. */
  private void workLoop() {
    do {
      Work w;
      while ((w = pending.poll()) != null) {
        boolean started = !stopRequested && !revoking.contains(w.partition);
        completions.add(started ? process(w, w.dispatchedAttempt) : new Completion(w, null, null));
      }
      runningWorkers.decrementAndGet();
    } while (!pending.isEmpty() && tryStartWorker());
  }

  /** Runs on a worker thread: the engine, then the dead-letter publish the disposition asks for. */
  private Completion process(Work w, int attempt) {
    try {
      Disposition d = processor.process(RecordMapper.toMessage(w.record, attempt));
      if (d instanceof Disposition.DeadLetter dl) {
        deadLetters.publish(w.record, dl.reason().name(), dl.errorClass(), dl.cause(), attempt);
      } else if (d instanceof Disposition.AckDeclined declined
          && settings.deadLetterDeclines()
          && !declined.replayed()) {
        deadLetters.publish(w.record, "DECLINED", ErrorClass.PERMANENT, declined.cause(), attempt);
      }
      return new Completion(w, d, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Completion(w, new Disposition.NackRetry(Duration.ofSeconds(1), e, 0), null);
    } catch (Exception e) {
      log.warn("{}: dead-letter publish failed ({}); will retry", w, e.toString());
      return new Completion(w, new Disposition.NackRetry(Duration.ofSeconds(1), e, 0), null);
    } catch (Throwable t) {
      return new Completion(w, null, t);
    }
  }

  private void drainCompletions(long waitMillis) {
    try {
      Completion c =
          waitMillis > 0 ? completions.poll(waitMillis, TimeUnit.MILLISECONDS) : completions.poll();
      while (c != null) {
        complete(c);
        c = completions.poll();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopRequested = true;
    }
  }

  private void complete(Completion c) {
    Work w = c.work();
    inFlight--;
    inFlightByPartition.merge(w.partition, -1, Integer::sum);
    if (c.fatal() != null) {
      throw new IllegalStateException("a worker failed on " + w, c.fatal());
    }
    if (c.disposition() == null) {
      // not started (stopping, or its partition is being revoked): never committed, so the next
      // owner of the partition receives it again
      lanes.done(w);
      return;
    }
    PartitionProgress p = progress.get(w.partition);
    if (p == null) {
      lanes.done(w);
      return;
    }
    if (c.disposition() instanceof Disposition.NackRetry nack) {
      SigloConfigurationException broken = SigloConfigurationException.in(nack.cause());
      if (broken != null) {
        throw broken;
      }
      w.attempt++;
      lanes.retryLater(w, nack.delay().toNanos(), System.nanoTime());
      return;
    }
    p.completed(w.offset());
    lanes.done(w);
  }

  private void commitIfDue(KafkaConsumer<byte[], byte[]> c) {
    long now = System.nanoTime();
    inFlightGauge.set(inFlight);
    if (now - lastCommitNanos < settings.commitInterval().toNanos()) {
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
      c.commitAsync(
          offsets,
          (committed, e) -> {
            if (e != null) {
              // runs on this (the poll) thread, inside a later poll: send it again next interval
              log.warn("async commit of {} failed: {}; will retry", committed, e.toString());
              committed.forEach(
                  (tp, o) -> {
                    PartitionProgress p = progress.get(tp);
                    if (p != null) {
                      p.commitFailed(o.offset());
                    }
                  });
            }
          });
    }
  }

  /** Samples each partition's lag on the poll thread; gauges read the samples. */
  private void sampleLag(KafkaConsumer<byte[], byte[]> c) {
    if (settings.metrics() == null) {
      return;
    }
    for (TopicPartition tp : progress.keySet()) {
      c.currentLag(tp).ifPresent(lag -> lags.put(tp, lag));
      if (lagGauges.add(tp)) {
        settings.metrics().lag(tp.topic(), tp.partition(), () -> lags.getOrDefault(tp, 0L));
      }
    }
  }

  private void commitSync(KafkaConsumer<byte[], byte[]> c, Collection<TopicPartition> partitions) {
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
        c.commitSync(offsets, Duration.ofSeconds(10));
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

  private void applyBackpressure(KafkaConsumer<byte[], byte[]> c) {
    int buffered = lanes.buffered();
    if (buffered >= settings.maxBuffered()) {
      c.pause(c.assignment());
      paused = true;
    } else if (paused && buffered <= settings.maxBuffered() / 2) {
      c.resume(c.paused());
      paused = false;
    }
  }

  private void awaitInFlight(Set<TopicPartition> partitions, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inFlightIn(partitions) > 0 && System.nanoTime() < deadline) {
      drainCompletions(10);
    }
  }

  private int inFlightIn(Set<TopicPartition> partitions) {
    int n = 0;
    for (TopicPartition tp : partitions) {
      n += inFlightByPartition.getOrDefault(tp, 0);
    }
    return n;
  }

  private void shutdown(KafkaConsumer<byte[], byte[]> c) {
    Set<TopicPartition> all = new HashSet<>(progress.keySet());
    awaitInFlight(all, closeTimeout);
    commitSync(c, all);
    log.info(
        "Siglo Kafka consumer of group '{}' stopped; {} record(s) still running were not committed",
        settings.groupId(),
        inFlight);
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis()); // waiting for topics to appear at start-up
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Runs on the poll thread, inside {@code poll}. */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (partitions.isEmpty()) {
        return;
      }
      Set<TopicPartition> revoked = new HashSet<>(partitions);
      lanes.removePartitions(revoked);
      revoking.addAll(revoked);
      try {
        awaitInFlight(revoked, settings.rebalanceTimeout());
        commitSync(consumer, revoked);
      } finally {
        revoking.removeAll(revoked);
      }
      revoked.forEach(progress::remove);
      log.info("partitions revoked: {}", revoked);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      for (TopicPartition tp : partitions) {
        progress.put(tp, new PartitionProgress());
      }
      log.info("partitions assigned: {}", partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      Set<TopicPartition> lost = new HashSet<>(partitions);
      lanes.removePartitions(lost);
      lost.forEach(progress::remove);
      log.warn("partitions lost: {}", lost);
    }
  }
}
