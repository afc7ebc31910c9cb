package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.IntakeGate;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Time;
import dev.siglo.kafka.internal.ShareInFlight.Held;
import dev.siglo.kafka.internal.ShareInFlight.State;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share consumer's poll thread: the only thread that touches the {@link ShareConsumer}.
 *
 * <p>It polls only when every record the last poll returned was acknowledged or renewed (explicit
 * acknowledgement requires it), and, for new records, only when it holds none and intake is open: a
 * poll's records (at most {@code max.poll.records}) run on the workers, each acknowledged as soon
 * as it finishes. {@code ACCEPT} for a processed, duplicate, declined or dead-lettered record;
 * {@code REJECT} for a dead letter with no dead-letter topic; {@code RELEASE} for a transient
 * failure, after its backoff was waited out holding the record. A failure of Siglo's own
 * infrastructure (the store unavailable, a duplicate's live holder) is not the record's fault and
 * spends none of its broker deliveries: the record is held and run again here after the backoff.
 *
 * <p>Held records are renewed ({@code RENEW}) a third of the acquisition lock after their
 * acquisition or last renewal, all at once, then a poll brings them back; a record that finished
 * meanwhile is acknowledged when it comes back. Acknowledgements are committed by the next poll or
 * at once with {@code commitAsync}; every commit's outcome reaches the commit callback, and a
 * failed one is counted ({@code siglo.acknowledgement.failures}) and logged: the broker redelivers
 * the record once its lock ends, and Siglo answers the redelivery from the store.
 *
 * <p>On stop: unstarted and backing-off records are released at once (except a record on its last
 * broker delivery, which the broker would archive: it still runs), running ones get the close
 * timeout, the acknowledgements are committed synchronously and checked, the consumer closes.
 */
public final class SharePollLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(SharePollLoop.class);
  private static final long IDLE_POLL_MILLIS = 100;
  private static final long RETURN_POLL_MILLIS = 20;
  private static final long MAX_WAIT_MILLIS = 100;
  private static final int DEFAULT_LOCK_MILLIS = 30_000;
  private static final Duration CLOSE_COMMIT_TIMEOUT = Duration.ofSeconds(10);

  private final ShareRuntimeConfig settings;
  private final Supplier<ShareConsumer<byte[], byte[]>> consumers;
  private final RecordRunner runner;
  private final AutoCloseable resources;
  private final ExecutorService workers;
  private final CompletableFuture<Void> termination;
  private final Time time;
  private final IntakeGate intake;
  private final ShareInFlight held = new ShareInFlight();
  private final BlockingQueue<List<Completion>> completions = new LinkedBlockingQueue<>();
  private final AtomicInteger inFlightGauge = new AtomicInteger();
  private final Map<AcknowledgeType, Counter> failureCounters =
      new EnumMap<>(AcknowledgeType.class);
  private final Map<String, AcknowledgeType> sentTypes = new java.util.HashMap<>();
  private final long livenessNanos;
  private volatile boolean stopRequested;
  private volatile Duration closeTimeout = Duration.ofSeconds(30);
  private int deliveryLimit = ShareGroupSetup.DEFAULT_DELIVERY_COUNT_LIMIT;
  private int running; // records running
  private int runningTasks; // workers running (a record each, or a batch)
  private long lastPoll;
  private boolean acksUnsent;
  private boolean gateClosed;
  private long failedAcknowledgements;

  /**
   * The runtime's loop: a {@link KafkaShareConsumer} reading bytes, the engine on the workers, dead
   * letters to the dead-letter topic, real time.
   *
   * @param settings the settings
   * @param processor the engine
   * @param workers the worker pool ({@code concurrency} named threads), shut down at the end
   * @param termination completed when the loop ends: normally on close, exceptionally on a fatal
   *     error
   */
  public SharePollLoop(
      ShareRuntimeConfig settings,
      MessageProcessor processor,
      ExecutorService workers,
      CompletableFuture<Void> termination) {
    this(
        settings,
        () ->
            new KafkaShareConsumer<>(
                settings.clientProperties(),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer()),
        processor,
        workers,
        termination,
        Time.SYSTEM);
  }

  private SharePollLoop(
      ShareRuntimeConfig settings,
      Supplier<ShareConsumer<byte[], byte[]>> consumers,
      MessageProcessor processor,
      ExecutorService workers,
      CompletableFuture<Void> termination,
      Time time) {
    this.settings = settings;
    this.consumers = consumers;
    this.workers = workers;
    this.termination = termination;
    this.time = time;
    this.intake = processor.intake();
    DeadLetterPublisher deadLetters =
        new DeadLetterPublisher(
            settings.clientProperties(),
            settings.deadLetterTopic(),
            settings.groupId(),
            settings.deadLetterTimeout().toMillis());
    this.runner = new EngineRunner(processor, deadLetters, settings.deadLetterDeclines(), true);
    this.resources =
        () -> {
          try {
            deadLetters.close();
          } finally {
            processor.close();
          }
        };
    Object interval = settings.clientProperties().get("max.poll.interval.ms");
    long maxPollMillis = interval == null ? 300_000 : Long.parseLong(interval.toString());
    this.livenessNanos = TimeUnit.MILLISECONDS.toNanos(maxPollMillis / 3);
  }

  /**
   * Asks the loop to stop: unstarted records are released, running ones get up to {@code timeout},
   * then the consumer closes. Safe from any thread; idempotent.
   *
   * @param timeout the longest wait for running records
   */
  public void requestStop(Duration timeout) {
    closeTimeout = timeout;
    stopRequested = true; // seen within one poll timeout; no wakeup, which could abort the drain
  }

  /**
   * @return acknowledgements the broker refused or that were lost, since the start
   */
  public synchronized long failedAcknowledgements() {
    return failedAcknowledgements;
  }

  @Override
  public void run() {
    Throwable failure = null;
    try (ShareConsumer<byte[], byte[]> c = consumers.get()) {
      c.setAcknowledgementCommitCallback(this::onCommitted);
      registerMetrics();
      deliveryLimit = ShareGroupSetup.prepare(settings, time);
      if (!stopRequested) {
        c.subscribe(settings.topics());
        while (!stopRequested) {
          loopOnce(c);
        }
      }
      shutdown(c);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = stopRequested ? null : e;
    } catch (Throwable t) {
      log.error(
          "Siglo Kafka share consumer of group '{}' stopped: {}",
          settings.groupId(),
          t.toString(),
          t);
      failure = t;
    } finally {
      workers.shutdownNow();
      try {
        resources.close();
      } catch (Exception e) {
        log.warn("closing the dead-letter producer failed: {}", e.toString());
      }
    }
    if (failure == null) {
      termination.complete(null);
    } else {
      termination.completeExceptionally(failure);
    }
  }

  private void registerMetrics() {
    if (settings.metrics() == null) {
      return;
    }
    String topics = String.join(",", settings.topics());
    settings.metrics().inFlight("kafka-share", topics, inFlightGauge::get);
    settings.metrics().paused("kafka-share", topics, () -> !intake.isOpen());
    for (AcknowledgeType type : AcknowledgeType.values()) {
      failureCounters.put(
          type,
          settings
              .metrics()
              .acknowledgementFailures(
                  "kafka-share", topics, type.name().toLowerCase(java.util.Locale.ROOT)));
    }
  }

  private void loopOnce(ShareConsumer<byte[], byte[]> c) throws InterruptedException {
    long now = time.nanoTime();
    advance(c, now);
    inFlightGauge.set(held.size());
    boolean returning = held.awaitingReturn();
    boolean fresh = held.isEmpty() && (!gateClosed || now - lastPoll >= livenessNanos);
    if (held.mayPoll() && (returning || fresh)) {
      poll(c, returning ? RETURN_POLL_MILLIS : IDLE_POLL_MILLIS);
      dispatch(c);
      return;
    }
    if (acksUnsent) {
      c.commitAsync();
      acksUnsent = false;
    }
    long wait = held.nanosToNextDeadline(now, renewNanos(c));
    applyCompletions(c, Math.min(TimeUnit.NANOSECONDS.toMillis(wait), MAX_WAIT_MILLIS));
  }

  /** Acknowledges what finished, ends backoffs, starts queued records and renews held ones. */
  private void advance(ShareConsumer<byte[], byte[]> c, long now) throws InterruptedException {
    applyCompletions(c, 0);
    endBackoffs(c, now);
    watchGate();
    dispatch(c);
    renew(c, now);
  }

  private void poll(ShareConsumer<byte[], byte[]> c, long millis) {
    acksUnsent = false;
    Iterable<ConsumerRecord<byte[], byte[]>> records;
    try {
      records = c.poll(Duration.ofMillis(millis));
    } catch (IllegalStateException unacknowledged) {
      // explicit acknowledgement refuses a poll while the client holds a record in flight that was
      // not acknowledged since: a renewed record the client took back in flight although no poll
      // returned it. Those are answered here (their final acknowledgement, or a renewal again),
      // and the poll goes on; anything else is a bug and ends the consumer.
      if (reclaimRenewed(c) == 0) {
        throw unacknowledged;
      }
      records = c.poll(Duration.ofMillis(millis));
    }
    long now = time.nanoTime();
    lastPoll = now;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      Held back = held.received(r, now);
      if (back != null) {
        acknowledge(c, back, back.pending);
      } else if (stopRequested) {
        Held fresh = held.find(r.topic(), r.partition(), r.offset());
        if (fresh != null && fresh.state == State.QUEUED && releasable(fresh)) {
          acknowledge(c, fresh, AcknowledgeType.RELEASE);
        }
      }
    }
  }

  /**
   * Acknowledges again the records held as renewing that the client has in flight once more ({@link
   * ShareInFlight#reclaim}).
   *
   * @return how many records were in flight again
   */
  private int reclaimRenewed(ShareConsumer<byte[], byte[]> c) {
    List<Held> reclaimed =
        held.reclaim(
            (h, type) -> {
              c.acknowledge(h.record, type);
              track(h, type);
            },
            time.nanoTime());
    if (!reclaimed.isEmpty()) {
      log.warn(
          "share group '{}': renewed record(s) {} came back in flight without a poll returning"
              + " them; acknowledged again",
          settings.groupId(),
          reclaimed);
    }
    return reclaimed.size();
  }

  /**
   * Starts queued records while workers are free and intake is open; when stopping, only those on
   * their last broker delivery (the others are released).
   */
  private void dispatch(ShareConsumer<byte[], byte[]> c) {
    if (gateClosed) {
      return;
    }
    int batchSize = Math.max(1, settings.batching().size());
    while (runningTasks < settings.concurrency()) {
      List<Work> batch = new ArrayList<>(Math.min(batchSize, 64));
      while (batch.size() < batchSize) {
        Held h = held.nextQueued();
        if (h == null) {
          break;
        }
        if (stopRequested && releasable(h)) {
          acknowledge(c, h, AcknowledgeType.RELEASE);
          continue;
        }
        h.state = State.RUNNING;
        h.work.dispatchedAttempt = h.deliveryCount();
        batch.add(h.work);
      }
      if (batch.isEmpty()) {
        break;
      }
      running += batch.size();
      runningTasks++;
      workers.execute(() -> completions.add(runTask(batch)));
    }
  }

  /** Runs one record, or (a batch handler's) a batch, on a worker: its answers, one per record. */
  private List<Completion> runTask(List<Work> batch) {
    try {
      return settings.batching().enabled()
          ? runner.runAll(batch)
          : List.of(runner.run(batch.get(0), batch.get(0).dispatchedAttempt));
    } catch (Throwable t) {
      List<Completion> fatal = new ArrayList<>(batch.size());
      for (Work w : batch) {
        fatal.add(new Completion(w, null, t));
      }
      return fatal;
    }
  }

  private void applyCompletions(ShareConsumer<byte[], byte[]> c, long waitMillis)
      throws InterruptedException {
    List<Completion> first =
        waitMillis > 0 ? completions.poll(waitMillis, TimeUnit.MILLISECONDS) : completions.poll();
    for (List<Completion> task = first; task != null; task = completions.poll()) {
      runningTasks--;
      for (Completion done : task) {
        running--;
        complete(c, done);
      }
    }
  }

  private void complete(ShareConsumer<byte[], byte[]> c, Completion done) {
    if (done.fatal() != null) {
      throw new IllegalStateException("a worker failed on " + done.work(), done.fatal());
    }
    Held h = held.of(done.work());
    if (h == null) {
      return; // its acquisition was lost; the broker redelivers it and the store answers
    }
    Disposition d = done.disposition();
    if (d instanceof Disposition.NackRetry nack) {
      SigloConfigurationException broken = SigloConfigurationException.in(nack.cause());
      if (broken != null) {
        throw broken;
      }
      h.state = State.WAITING;
      h.waitUntil = time.nanoTime() + nack.delay().toNanos();
      // released, the broker delivers it again (to any member); on its last delivery the broker
      // would archive it instead, so it runs again here and meets its dead letter
      h.afterWait = nack.counted() && releasable(h) ? AcknowledgeType.RELEASE : null;
      return;
    }
    boolean rejected =
        d instanceof Disposition.DeadLetter
            && settings.deadLetterTopic().apply(h.record.topic()) == null;
    acknowledge(c, h, rejected ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT);
  }

  /** Backoffs that ended: the record is released, or (Siglo's own failure) run again here. */
  private void endBackoffs(ShareConsumer<byte[], byte[]> c, long now) {
    for (Held h : held.doneWaiting(now)) {
      if (h.afterWait != null) {
        acknowledge(c, h, h.afterWait);
      } else {
        held.requeue(h);
      }
    }
  }

  private void watchGate() {
    boolean closed = !intake.isOpen();
    if (closed != gateClosed) {
      gateClosed = closed;
      log.warn(
          closed
              ? "Siglo Kafka share consumer of group '{}': intake paused ({})"
              : "Siglo Kafka share consumer of group '{}': intake resumed{}",
          settings.groupId(),
          intake.pausedReason().orElse(""));
    }
  }

  /** Renews every unfinished acknowledgeable record once one is a third into its lock. */
  private void renew(ShareConsumer<byte[], byte[]> c, long now) {
    long interval = renewNanos(c);
    for (Held lost : held.expired(now, 3 * interval)) {
      log.warn("{}: its renewal never came back; its acquisition ended", lost);
    }
    List<Held> due = held.dueForRenewal(now, interval);
    for (Held h : due) {
      c.acknowledge(h.record, AcknowledgeType.RENEW);
      track(h, AcknowledgeType.RENEW);
      h.acknowledgeable = false;
      h.renewedAt = now;
    }
    if (!due.isEmpty()) {
      log.debug("renewed {} record(s)", due.size());
    }
  }

  private long renewNanos(ShareConsumer<byte[], byte[]> c) {
    Optional<Integer> lock = c.acquisitionLockTimeoutMs();
    return TimeUnit.MILLISECONDS.toNanos(lock.orElse(DEFAULT_LOCK_MILLIS)) / 3;
  }

  /** The final acknowledgement, now or (the record is being renewed) once it comes back. */
  private void acknowledge(ShareConsumer<byte[], byte[]> c, Held h, AcknowledgeType type) {
    if (!h.acknowledgeable) {
      h.state = State.DONE;
      h.pending = type;
      return;
    }
    c.acknowledge(h.record, type);
    track(h, type);
    held.remove(h);
    acksUnsent = true;
  }

  private void track(Held h, AcknowledgeType type) {
    synchronized (sentTypes) {
      sentTypes.put(h.record.topic() + "-" + h.record.partition() + "@" + h.record.offset(), type);
    }
  }

  /** The commit callback, on the poll thread inside poll and commit calls. */
  private void onCommitted(Map<TopicIdPartition, Set<Long>> offsets, Exception failure) {
    for (Map.Entry<TopicIdPartition, Set<Long>> e : offsets.entrySet()) {
      TopicIdPartition tp = e.getKey();
      for (long offset : e.getValue()) {
        AcknowledgeType type;
        synchronized (sentTypes) {
          type = sentTypes.remove(tp.topic() + "-" + tp.partition() + "@" + offset);
        }
        if (failure == null) {
          continue;
        }
        countFailure(type);
        Held h = held.find(tp.topic(), tp.partition(), offset);
        if (h != null && !h.acknowledgeable) {
          held.remove(h); // a renewal refused: the acquisition ended, the broker redelivers it
        }
      }
    }
    if (failure != null) {
      log.warn(
          "share group '{}': the broker did not take acknowledgements of {}: {}; the records are"
              + " delivered again and answered from the store",
          settings.groupId(),
          offsets,
          failure.toString());
    }
  }

  private synchronized void countFailure(AcknowledgeType type) {
    failedAcknowledgements++;
    Counter counter = type == null ? null : failureCounters.get(type);
    if (counter != null) {
      counter.increment();
    }
  }

  private boolean releasable(Held h) {
    return h.deliveryCount() < deliveryLimit;
  }

  private void shutdown(ShareConsumer<byte[], byte[]> c) throws InterruptedException {
    for (Held h : held.all()) {
      boolean idle = h.state == State.QUEUED || h.state == State.WAITING;
      if (idle && releasable(h)) {
        acknowledge(c, h, AcknowledgeType.RELEASE);
      } else if (h.state == State.WAITING) {
        held.requeue(h); // its last delivery: released, the broker would archive it
      }
    }
    if (acksUnsent) {
      c.commitAsync();
      acksUnsent = false;
    }
    long deadline = time.nanoTime() + closeTimeout.toNanos();
    while (time.nanoTime() - deadline < 0 && (running > 0 || held.count(State.QUEUED) > 0)) {
      advance(c, time.nanoTime());
      if (held.mayPoll() && held.awaitingReturn()) {
        poll(c, RETURN_POLL_MILLIS);
      } else {
        if (acksUnsent) {
          c.commitAsync();
          acksUnsent = false;
        }
        applyCompletions(c, MAX_WAIT_MILLIS);
      }
    }
    try {
      Map<TopicIdPartition, Optional<KafkaException>> results = c.commitSync(CLOSE_COMMIT_TIMEOUT);
      results.forEach(
          (tp, error) ->
              error.ifPresent(
                  e ->
                      log.warn(
                          "{}: acknowledgements not committed on close: {}", tp, e.toString())));
    } catch (KafkaException e) {
      log.warn("committing acknowledgements on close failed: {}", e.toString());
    }
    log.info(
        "Siglo Kafka share consumer of group '{}' stopped; {} record(s) still held are released",
        settings.groupId(),
        held.size());
  }
}
