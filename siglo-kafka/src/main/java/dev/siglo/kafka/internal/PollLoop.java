package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.IntakeGate;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Time;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll thread: the only thread that touches the Kafka {@link Consumer}. It subscribes (failing
 * with a configuration error when a topic does not appear in time), polls, hands records to the
 * {@link Dispatcher}, lets the {@link OffsetCommitter} commit completed prefixes, pauses fetching
 * when too much is buffered, handles rebalances (revoked partitions: wait for their running
 * records, commit, forget), and on stop waits for running records, commits and closes. It ends the
 * termination future: normally on stop, exceptionally on a fatal error.
 */
public final class PollLoop implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(PollLoop.class);
  private static final Duration TOPIC_CHECK_PAUSE = Duration.ofMillis(500);
  private static final Duration LIST_TOPICS_TIMEOUT = Duration.ofSeconds(5);
  private static final long IDLE_POLL_MILLIS = 100;
  private static final long BUSY_POLL_MILLIS = 20;

  private final KafkaRuntimeConfig settings;
  private final Supplier<Consumer<byte[], byte[]>> consumers;
  private final java.util.function.Consumer<Set<String>> topicCreator;
  private final ExecutorService workers;
  private final AutoCloseable resources;
  private final CompletableFuture<Void> termination;
  private final Time time;
  private final OffsetCommitter offsets;
  private final Dispatcher dispatcher;
  private final AtomicInteger inFlightGauge = new AtomicInteger();
  private volatile boolean stopRequested;
  private volatile Duration closeTimeout;
  private volatile Consumer<byte[], byte[]> consumer;
  private final IntakeGate intake;
  private boolean paused;
  private boolean gateClosed;
  private boolean fetchPaused;

  /**
   * The runtime's loop: a {@link KafkaConsumer} reading bytes, the engine on the workers, dead
   * letters to the dead-letter topic, real time.
   *
   * @param settings the settings
   * @param processor the engine
   * @param workers the worker pool (named threads, {@code concurrency} of them), shut down at the
   *     end
   * @param termination completed when the loop ends: normally on close, exceptionally on a fatal
   *     error
   */
  public PollLoop(
      KafkaRuntimeConfig settings,
      MessageProcessor processor,
      ExecutorService workers,
      CompletableFuture<Void> termination) {
    this(
        settings,
        () ->
            new KafkaConsumer<>(
                settings.clientProperties(),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer()),
        deadLetterRunner(settings, processor),
        topics -> AdminTopics.create(settings.clientProperties(), topics),
        workers,
        termination,
        Time.SYSTEM,
        processor.intake());
  }

  private PollLoop(
      KafkaRuntimeConfig settings,
      Supplier<Consumer<byte[], byte[]>> consumers,
      RunnerAndResources runner,
      java.util.function.Consumer<Set<String>> topicCreator,
      ExecutorService workers,
      CompletableFuture<Void> termination,
      Time time,
      IntakeGate intake) {
    this.settings = settings;
    this.intake = intake;
    this.topicCreator = topicCreator;
    this.consumers = consumers;
    this.workers = workers;
    this.resources = runner.resources();
    this.termination = termination;
    this.time = time;
    this.closeTimeout = SigloKafkaConsumer.DEFAULT_CLOSE_TIMEOUT;
    this.offsets = new OffsetCommitter(settings.commitInterval(), time, settings.metrics());
    this.dispatcher =
        new Dispatcher(
            settings.ordering(),
            settings.concurrency(),
            workers,
            runner.runner(),
            offsets,
            time,
            intake,
            settings.batching().size(),
            settings.batching().linger());
  }

  /**
   * A loop on any consumer and runner, for tests without a broker ({@code MockConsumer}).
   *
   * @param settings the settings
   * @param consumers makes the consumer, on the poll thread
   * @param runner runs one record on a worker
   * @param topicCreator creates missing dead-letter topics (when the settings ask for it)
   * @param workers the worker pool, shut down at the end
   * @param termination completed when the loop ends
   * @param time the time intervals, deadlines and retry delays are measured on
   * @param intake the gate: while it is closed every assigned partition is paused
   * @return the loop
   */
  static PollLoop of(
      KafkaRuntimeConfig settings,
      Supplier<Consumer<byte[], byte[]>> consumers,
      RecordRunner runner,
      java.util.function.Consumer<Set<String>> topicCreator,
      ExecutorService workers,
      CompletableFuture<Void> termination,
      Time time,
      IntakeGate intake) {
    return new PollLoop(
        settings,
        consumers,
        new RunnerAndResources(runner, () -> {}),
        topicCreator,
        workers,
        termination,
        time,
        intake);
  }

  /** A record runner and what must be closed with the loop. */
  private record RunnerAndResources(RecordRunner runner, AutoCloseable resources) {}

  private static RunnerAndResources deadLetterRunner(
      KafkaRuntimeConfig settings, MessageProcessor processor) {
    DeadLetterPublisher deadLetters =
        new DeadLetterPublisher(
            settings.clientProperties(),
            settings.deadLetterTopic(),
            settings.groupId(),
            settings.deadLetterTimeout().toMillis());
    return new RunnerAndResources(
        new EngineRunner(processor, deadLetters, settings.deadLetterDeclines()),
        () -> {
          try {
            deadLetters.close();
          } finally {
            processor.close();
          }
        });
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
    dispatcher.stop();
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  /**
   * Runs until stopped or failed. The termination future completes only after the consumer is
   * closed, the workers are shut down and the dead-letter producer is released, so a caller that
   * waited for it may start a new consumer in the same group at once.
   */
  @Override
  public void run() {
    Throwable failure = null;
    try (Consumer<byte[], byte[]> c = consumers.get()) {
      consumer = c;
      if (settings.metrics() != null) {
        String topics = String.join(",", settings.topics());
        settings.metrics().inFlight("kafka", topics, inFlightGauge::get);
        settings.metrics().paused("kafka", topics, () -> !intake.isOpen());
      }
      subscribe(c);
      while (!stopRequested) {
        loopOnce(c);
      }
      shutdown(c);
    } catch (WakeupException e) {
      failure = stopRequested ? null : e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // interrupted while waiting for the topics to appear
      failure = stopRequested ? null : e;
    } catch (Throwable t) {
      log.error(
          "Siglo Kafka consumer of group '{}' stopped: {}", settings.groupId(), t.toString(), t);
      failure = t;
    } finally {
      workers.shutdownNow();
      closeQuietly(resources);
    }
    if (failure == null) {
      termination.complete(null);
    } else {
      termination.completeExceptionally(failure);
    }
  }

  private void subscribe(Consumer<byte[], byte[]> c) throws InterruptedException {
    ConsumerRebalanceListener listener = new Rebalance();
    if (settings.pattern() != null) {
      c.subscribe(settings.pattern(), listener);
      return;
    }
    long deadline = time.nanoTime() + settings.topicCheckTimeout().toNanos();
    Set<String> missing = new HashSet<>(settings.topics());
    Set<String> existing;
    while (true) {
      try {
        existing = c.listTopics(LIST_TOPICS_TIMEOUT).keySet();
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        // no answer yet (a broker starting, restarting or overloaded): ask again until the deadline
        existing = null;
      }
      if (existing != null) {
        missing.removeAll(existing);
        if (missing.isEmpty()) {
          break;
        }
      }
      if (stopRequested) {
        return;
      }
      if (time.nanoTime() - deadline > 0) {
        throw new SigloConfigurationException(
            existing == null
                ? "Kafka did not answer a metadata request within "
                    + settings.topicCheckTimeout()
                    + " (check bootstrap.servers and that the cluster is up)"
                : "topic(s) "
                    + missing
                    + " do not exist (checked for "
                    + settings.topicCheckTimeout()
                    + ")");
      }
      time.sleep(TOPIC_CHECK_PAUSE);
    }
    AdminTopics.requireDeadLetterTopics(
        settings.topics(),
        settings.deadLetterTopic(),
        settings.createDeadLetterTopics(),
        existing,
        topicCreator);
    c.subscribe(settings.topics(), listener);
  }

  private void loopOnce(Consumer<byte[], byte[]> c) {
    drain(0);
    dispatcher.dispatch();
    inFlightGauge.set(dispatcher.inFlight());
    offsets.commitIfDue(c);
    applyBackpressure(c);
    long wait =
        dispatcher.waitMillis(dispatcher.inFlight() > 0 ? BUSY_POLL_MILLIS : IDLE_POLL_MILLIS);
    ConsumerRecords<byte[], byte[]> records;
    try {
      if (dispatcher.hasWaiting()) {
        // Records are waiting for a worker, for their lane or for a retry's delay: only a
        // completion (or the delay) moves them, so wait for completions here rather than inside
        // poll, where a finished worker could not wake this thread; then fetch without blocking.
        drain(wait);
        dispatcher.dispatch();
        records = c.poll(Duration.ZERO);
      } else {
        records = c.poll(Duration.ofMillis(wait));
      }
    } catch (WakeupException e) {
      return;
    }
    // partition by partition: one TopicPartition per partition, not one (and its hash) per record
    for (TopicPartition partition : records.partitions()) {
      for (ConsumerRecord<byte[], byte[]> r : records.records(partition)) {
        if (offsets.received(partition, r.offset())) {
          dispatcher.add(r, partition);
        }
      }
    }
    dispatcher.dispatch();
  }

  private void drain(long waitMillis) {
    if (!dispatcher.drainCompletions(waitMillis)) {
      requestStop(closeTimeout);
    }
  }

  /**
   * Pauses fetching while too much is buffered, and every assigned partition (newly assigned ones
   * too) while the intake gate is closed; the loop keeps polling, so the consumer stays in its
   * group. Fetching resumes once neither holds.
   */
  private void applyBackpressure(Consumer<byte[], byte[]> c) {
    int buffered = dispatcher.buffered();
    if (buffered >= settings.maxBuffered()) {
      paused = true;
    } else if (paused && buffered <= settings.maxBuffered() / 2) {
      paused = false;
    }
    boolean closed = !intake.isOpen();
    if (closed != gateClosed) {
      gateClosed = closed;
      log.warn(
          closed
              ? "Siglo Kafka consumer of group '{}': intake paused ({})"
              : "Siglo Kafka consumer of group '{}': intake resumed{}",
          settings.groupId(),
          intake.pausedReason().orElse(""));
    }
    if (paused || gateClosed) {
      c.pause(c.assignment());
      fetchPaused = true;
    } else if (fetchPaused) {
      c.resume(c.paused());
      fetchPaused = false;
    }
  }

  private void shutdown(Consumer<byte[], byte[]> c) {
    Set<TopicPartition> all = offsets.partitions();
    dispatcher.awaitInFlight(all, closeTimeout);
    offsets.commitSync(c, all);
    log.info(
        "Siglo Kafka consumer of group '{}' stopped; {} record(s) still running were not committed",
        settings.groupId(),
        dispatcher.inFlight());
  }

  private static void closeQuietly(AutoCloseable resource) {
    try {
      resource.close();
    } catch (Exception e) {
      log.warn("closing {} failed: {}", resource, e.toString());
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
      dispatcher.revoking(revoked);
      try {
        dispatcher.awaitInFlight(revoked, settings.rebalanceTimeout());
        offsets.commitSync(consumer, revoked);
      } finally {
        dispatcher.revoked(revoked);
      }
      offsets.removed(revoked);
      log.info("partitions revoked: {}", revoked);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      offsets.assigned(partitions);
      log.info("partitions assigned: {}", partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      Set<TopicPartition> lost = new HashSet<>(partitions);
      dispatcher.lost(lost);
      offsets.removed(lost);
      log.warn("partitions lost: {}", lost);
    }
  }
}
