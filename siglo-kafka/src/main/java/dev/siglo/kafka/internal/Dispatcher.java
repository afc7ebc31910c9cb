package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.IntakeGate;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Time;
import dev.siglo.kafka.Ordering;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Moves records from the poll thread to the workers and their answers back: records wait in their
 * {@link Lanes} until their lane is free (and a retry until its delay passed, on the injected
 * {@link Time}); ready records go to a shared queue that at most {@code concurrency} workers drain;
 * workers run each record with the {@link RecordRunner} and hand a {@link Completion} back on a
 * queue, which the poll thread applies: a completed offset goes to the {@link OffsetCommitter}, a
 * retry back to its lane, a configuration error or a worker's fatal error stops the consumer.
 *
 * <p><b>Batches.</b> With a batch size, ready records are gathered on the poll thread into batches
 * of up to that many, handed over when full or when the first of them waited the linger, and a
 * worker runs a whole batch at once ({@link RecordRunner#runAll}). A lane's next record becomes
 * ready only after its predecessor's completion, so a batch never holds two records of one lane.
 *
 * <p>Every method but the workers' loop runs on the poll thread.
 */
final class Dispatcher {
  /** Records handed to the workers and not started yet, per worker at most. */
  static final int MAX_PENDING_PER_WORKER = 8;

  private final Lanes lanes;
  private final int concurrency;
  private final Executor workers;
  private final RecordRunner runner;
  private final OffsetCommitter offsets;
  private final Time time;
  private final IntakeGate intake;
  private final LinkedBlockingQueue<Completion> completions = new LinkedBlockingQueue<>();
  private final ConcurrentLinkedQueue<Work> pending = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<List<Work>> pendingBatches = new ConcurrentLinkedQueue<>();
  private final int batchSize;
  private final long lingerNanos;
  private List<Work> forming = new ArrayList<>();
  private long formingSince;
  private final AtomicInteger runningWorkers = new AtomicInteger();
  private final Set<TopicPartition> revoking = ConcurrentHashMap.newKeySet();

  /** Records handed over and not answered yet, per partition (a counter each: no boxing). */
  private final Map<TopicPartition, int[]> inFlightByPartition = new HashMap<>();

  private volatile boolean stopping;
  private int inFlight;

  /**
   * @param ordering the ordering mode
   * @param concurrency the most workers running at once
   * @param workers runs the workers' loops (a pool of {@code concurrency} named threads)
   * @param runner runs one record on a worker
   * @param offsets told of every completed offset
   * @param time the time retry delays are measured on
   * @param intake while it is closed no record is handed to a worker, and a record handed over
   *     before it closed is answered with an uncounted retry instead of running
   * @param batchSize the most records a worker runs at once; 0 runs them one by one
   * @param linger how long a batch that is not full waits for more records
   */
  Dispatcher(
      Ordering ordering,
      int concurrency,
      Executor workers,
      RecordRunner runner,
      OffsetCommitter offsets,
      Time time,
      IntakeGate intake,
      int batchSize,
      Duration linger) {
    this.batchSize = batchSize;
    this.lingerNanos = linger.toNanos();
    this.intake = intake;
    this.lanes = new Lanes(ordering);
    this.concurrency = concurrency;
    this.workers = workers;
    this.runner = runner;
    this.offsets = offsets;
    this.time = time;
  }

  /** A polled record of an assigned partition joins its lane. */
  void add(ConsumerRecord<byte[], byte[]> record, TopicPartition partition) {
    lanes.add(lanes.workFor(record, partition));
  }

  /**
   * Hands ready records to the workers through a shared queue; workers take the next record as soon
   * as they are free, so a slow record never holds back the records handed over after it. At most
   * {@link #MAX_PENDING_PER_WORKER} records per worker wait there, so lane and retry decisions stay
   * fresh.
   */
  void dispatch() {
    long now = time.nanoTime();
    int limit = concurrency * (batchSize > 0 ? 2 * batchSize : MAX_PENDING_PER_WORKER);
    while (inFlight < limit && !stopping && intake.isOpen()) {
      Work w = lanes.nextReady(now);
      if (w == null) {
        break;
      }
      inFlight++;
      inFlightByPartition.computeIfAbsent(w.partition, tp -> new int[1])[0]++;
      w.dispatchedAttempt = w.attempt;
      if (batchSize == 0) {
        pending.add(w);
      } else {
        form(w, now);
      }
    }
    if (!forming.isEmpty()
        && (now - formingSince >= lingerNanos || inFlight >= limit || stopping)) {
      handOverForming();
    }
    startWorkers();
  }

  private void startWorkers() {
    while ((!pending.isEmpty() || !pendingBatches.isEmpty()) && tryStartWorker()) {
      workers.execute(this::workLoop);
    }
  }

  private void form(Work w, long now) {
    if (forming.isEmpty()) {
      formingSince = now;
    }
    forming.add(w);
    if (forming.size() >= batchSize) {
      handOverForming();
    }
  }

  private void handOverForming() {
    pendingBatches.add(forming);
    forming = new ArrayList<>(Math.min(batchSize, 64));
  }

  private boolean tryStartWorker() {
    while (true) {
      int running = runningWorkers.get();
      if (running >= concurrency) {
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
        if (mayStart(w)) {
          completions.add(runner.run(w, w.dispatchedAttempt));
        }
      }
      List<Work> batch;
      while ((batch = pendingBatches.poll()) != null) {
        List<Work> start = new ArrayList<>(batch.size());
        for (Work b : batch) {
          if (mayStart(b)) {
            start.add(b);
          }
        }
        if (!start.isEmpty()) {
          completions.addAll(runner.runAll(start));
        }
      }
      runningWorkers.decrementAndGet();
    } while ((!pending.isEmpty() || !pendingBatches.isEmpty()) && tryStartWorker());
  }

  /**
   * @return whether the record may run now; if not, its answer (not started, or an uncounted retry
   *     while intake is paused) is already handed back
   */
  private boolean mayStart(Work w) {
    if (stopping || revoking.contains(w.partition)) {
      completions.add(new Completion(w, null, null));
      return false;
    }
    if (!intake.isOpen()) {
      completions.add(new Completion(w, pausedRetry(), null));
      return false;
    }
    return true;
  }

  /**
   * Applies the workers' answers, waiting up to {@code waitMillis} for the first.
   *
   * @param waitMillis how long to wait when none is there yet (0: do not wait)
   * @return false when the poll thread was interrupted while waiting (its flag is restored)
   * @throws SigloConfigurationException a record failed on a configuration error
   * @throws IllegalStateException a worker failed fatally
   */
  boolean drainCompletions(long waitMillis) {
    try {
      Completion c =
          waitMillis > 0 ? completions.poll(waitMillis, TimeUnit.MILLISECONDS) : completions.poll();
      while (c != null) {
        complete(c);
        c = completions.poll();
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void complete(Completion c) {
    Work w = c.work();
    inFlight--;
    inFlightByPartition.computeIfAbsent(w.partition, tp -> new int[1])[0]--;
    if (c.fatal() != null) {
      throw new IllegalStateException("a worker failed on " + w, c.fatal());
    }
    if (c.disposition() == null || !offsets.owns(w.partition)) {
      // not started (stopping, or its partition is being revoked), or its partition is gone:
      // never committed, so the next owner of the partition receives it again
      lanes.done(w);
      return;
    }
    if (c.disposition() instanceof Disposition.NackRetry nack) {
      SigloConfigurationException broken = SigloConfigurationException.in(nack.cause());
      if (broken != null) {
        throw broken;
      }
      if (nack.counted()) {
        w.attempt++;
      }
      lanes.retryLater(w, nack.delay().toNanos(), time.nanoTime());
      return;
    }
    offsets.completed(w.partition, w.offset());
    lanes.done(w);
  }

  /** The answer for a record not started because intake paused: retried once it opens. */
  private Disposition.NackRetry pausedRetry() {
    return new Disposition.NackRetry(
        Duration.ZERO,
        new IdempotencyStoreUnavailableException(
            "intake paused: " + intake.pausedReason().orElse("")),
        0,
        false);
  }

  /**
   * @param maxMillis the longest the poll thread should wait now
   * @return how long to wait for completions or records: until the next retry is due, capped
   */
  long waitMillis(long maxMillis) {
    long now = time.nanoTime();
    long due = lanes.nanosUntilNextDue(now);
    if (!forming.isEmpty()) {
      long handOver = Math.max(0, lingerNanos - (now - formingSince));
      due = due < 0 ? handOver : Math.min(due, handOver);
    }
    return due < 0
        ? maxMillis
        : Math.max(1, Math.min(maxMillis, TimeUnit.NANOSECONDS.toMillis(due)));
  }

  /**
   * Waits until no record of {@code partitions} runs, at most {@code timeout}, applying answers.
   *
   * @return false when interrupted while waiting
   */
  boolean awaitInFlight(Set<TopicPartition> partitions, Duration timeout) {
    handOverFormingNow();
    long deadline = time.nanoTime() + timeout.toNanos();
    while (inFlightIn(partitions) > 0 && time.nanoTime() < deadline) {
      if (!drainCompletions(10)) {
        return false;
      }
    }
    return true;
  }

  private int inFlightIn(Set<TopicPartition> partitions) {
    int n = 0;
    for (TopicPartition tp : partitions) {
      int[] count = inFlightByPartition.get(tp);
      n += count == null ? 0 : count[0];
    }
    return n;
  }

  /**
   * Partitions are being revoked: their records not started yet are dropped, and workers skip those
   * already handed over, until {@link #revoked}.
   */
  void revoking(Set<TopicPartition> partitions) {
    lanes.removePartitions(partitions);
    revoking.addAll(partitions);
    handOverFormingNow(); // its records of revoked partitions are answered unstarted
  }

  /** A batch still lingering goes to the workers now (they answer what may not start). */
  private void handOverFormingNow() {
    if (!forming.isEmpty()) {
      handOverForming();
      startWorkers();
    }
  }

  /** The revocation of {@code partitions} finished. */
  void revoked(Set<TopicPartition> partitions) {
    revoking.removeAll(partitions);
  }

  /** Partitions were lost without a chance to commit: their waiting records are dropped. */
  void lost(Set<TopicPartition> partitions) {
    lanes.removePartitions(partitions);
  }

  /** No record is started from now on; answers are still applied. Safe from any thread. */
  void stop() {
    stopping = true;
  }

  /**
   * @return records gathered into a batch that is not handed over yet (the linger runs)
   */
  int forming() {
    return forming.size();
  }

  /**
   * @return records handed to the workers and not answered yet
   */
  int inFlight() {
    return inFlight;
  }

  /**
   * @return records held (waiting in lanes, delayed for a retry, or in flight)
   */
  int buffered() {
    return lanes.buffered();
  }

  /**
   * @return whether records are waiting that only a completion or a retry delay can move
   */
  boolean hasWaiting() {
    return lanes.buffered() > inFlight;
  }
}
