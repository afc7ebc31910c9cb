package dev.siglo.sqs.internal;

import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The SQS runtime: pollers long-poll the queue while fewer than {@code maxInFlight} messages are
 * held; workers run the engine (FIFO groups one message at a time, in order); each disposition
 * becomes a delete, a visibility change or a dead-letter send, queued for the runtime's flusher. A
 * poller waits briefly for a full receive of ten. Stopping does not wait out a long poll: a poller
 * still in one hands back what it receives at once (visibility 0), as unstarted messages are;
 * pending deletes are flushed.
 */
public final class SqsRuntime {
  private static final Logger log = LoggerFactory.getLogger(SqsRuntime.class);

  private final SqsClient sqs;
  private final SqsRuntimeConfig settings;
  private final String queueName;
  private final MessageProcessor processor;
  private final CompletableFuture<Void> termination;
  private final Semaphore permits;

  /** Messages received and not finished (the gauge), apart from permits a long poll holds. */
  private final AtomicInteger inFlight = new AtomicInteger();

  private final ExecutorService workers;
  private final QueueActions actions;
  private final FollowUps followUps;
  private static final Duration RECEIVE_RETRY_PAUSE = Duration.ofSeconds(1);
  private static final Duration INTAKE_CHECK = Duration.ofSeconds(1);

  /**
   * How long a poller that holds some free in-flight slots waits for more before it receives: a
   * full receive of ten costs the queue one request instead of several.
   */
  static final Duration RECEIVE_LINGER = Duration.ofMillis(50);

  /** How long {@link #stop} waits for a poller in a long poll before it goes on without it. */
  private static final Duration POLLER_GRACE = Duration.ofMillis(200);

  private final Time time;
  private final Heartbeat heartbeat;
  private final io.micrometer.core.instrument.DistributionSummary receivedPerCall; // or null
  private final FifoGroups groups = new FifoGroups();
  private final MessageBatches batches; // null unless the handler is a batch handler
  private final List<Thread> pollers = new ArrayList<>();
  private volatile boolean stopping;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  /**
   * @param sqs the client (owned by the caller)
   * @param settings the settings
   * @param queueName the queue name, for messages' source
   * @param processor the engine (its intake gate pauses receiving; closed when the runtime stops)
   * @param termination completed when the runtime stops
   * @param time the time the heartbeat and the pause after a failed receive run on
   */
  public SqsRuntime(
      SqsClient sqs,
      SqsRuntimeConfig settings,
      String queueName,
      MessageProcessor processor,
      CompletableFuture<Void> termination,
      Time time) {
    this.sqs = sqs;
    this.time = time;
    this.settings = settings;
    this.queueName = queueName;
    this.processor = processor;
    this.termination = termination;
    this.permits = new Semaphore(settings.maxInFlight());
    this.workers =
        settings.workerThreads().executor("siglo-sqs-worker-" + queueName, settings.concurrency());
    this.actions = new QueueActions(sqs, settings);
    this.followUps = new FollowUps(actions, settings, processor, queueName, this::fail);
    this.heartbeat = new Heartbeat(actions::changeVisibility, settings, time);
    if (settings.metrics() != null) {
      settings.metrics().inFlight("sqs", queueName, inFlight::get);
      settings.metrics().paused("sqs", queueName, () -> !processor.intake().isOpen());
    }
    this.receivedPerCall =
        settings.metrics() == null ? null : settings.metrics().received("sqs", queueName);
    this.batches =
        settings.batching().enabled()
            ? new MessageBatches(settings.batching().size(), settings.batching().linger())
            : null;
  }

  /** Starts the pollers (and, for a batch handler, the batch workers). */
  public void start() {
    heartbeat.startTicking();
    if (batches != null) {
      for (int i = 0; i < settings.concurrency(); i++) {
        workers.execute(this::batchLoop);
      }
    }
    for (int i = 0; i < settings.pollers(); i++) {
      Thread t = new Thread(this::poll, "siglo-sqs-poller-" + queueName + "-" + (i + 1));
      t.setDaemon(true);
      pollers.add(t);
      t.start();
    }
  }

  private void poll() {
    int waitSeconds = (int) Math.min(20, Math.max(0, settings.waitTime().toSeconds()));
    while (!stopping) {
      int granted = 0;
      try {
        if (!processor.intake().awaitOpen(INTAKE_CHECK)) {
          continue; // paused: receive nothing until the store (or the user's gate) is back
        }
        granted = acquireSlots();
        if (granted == 0) {
          continue;
        }
        int max = granted;
        List<Message> received =
            sqs.receiveMessage(
                    b ->
                        b.queueUrl(settings.queueUrl())
                            .maxNumberOfMessages(max)
                            .waitTimeSeconds(waitSeconds)
                            .messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                            .messageAttributeNames("All"))
                .messages();
        permits.release(granted - received.size());
        inFlight.addAndGet(received.size());
        granted = 0;
        if (receivedPerCall != null && !received.isEmpty()) {
          receivedPerCall.record(received.size());
        }
        for (Message m : received) {
          if (stopping) {
            release(m); // the runtime stopped during the long poll: hand it back at once
          } else {
            dispatch(m);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        permits.release(granted);
        return;
      } catch (RuntimeException e) {
        permits.release(granted);
        if (stopping || failedReceive(e)) {
          return; // a receive in flight as the runtime stopped: nothing to report or retry
        }
      }
    }
  }

  /**
   * A receive failed while running: a missing queue or denied access stops the consumer, anything
   * else is retried after a pause.
   *
   * @return whether the poller stops
   */
  private boolean failedReceive(RuntimeException e) {
    if (e instanceof QueueDoesNotExistException) {
      fail(new SigloConfigurationException("queue " + settings.queueUrl() + " does not exist", e));
      return true;
    }
    if (e instanceof SqsException s && s.statusCode() == 403) {
      fail(
          new SigloConfigurationException(
              "access to queue " + settings.queueUrl() + " denied: " + e.getMessage(), e));
      return true;
    }
    receiveFailed(e);
    return false;
  }

  /**
   * Takes in-flight slots for one receive: waits up to a second for the first, then up to {@link
   * #RECEIVE_LINGER} for the rest of a full receive of ten, so a busy consumer asks for ten
   * messages rather than for the two slots free at that moment.
   *
   * @return the slots taken (0: none free within a second)
   */
  private int acquireSlots() throws InterruptedException {
    if (!permits.tryAcquire(1, 1, TimeUnit.SECONDS)) {
      return 0;
    }
    int granted = 1;
    long deadline = System.nanoTime() + RECEIVE_LINGER.toNanos();
    while (granted < 10) {
      long left = deadline - System.nanoTime();
      if (!permits.tryAcquire(1, Math.max(0, left), TimeUnit.NANOSECONDS)) {
        break;
      }
      granted++;
    }
    return granted;
  }

  /** Logs a failed receive and waits, so an unreachable endpoint is not hammered. */
  private void receiveFailed(RuntimeException e) {
    log.warn(
        "receiving from {} failed: {}; retrying in {}",
        queueName,
        e.toString(),
        RECEIVE_RETRY_PAUSE);
    try {
      time.sleep(RECEIVE_RETRY_PAUSE);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void dispatch(Message m) {
    String group = groupOf(m);
    if (group != null && !groups.admit(group, m)) {
      return; // waits behind its group's running message
    }
    if (batches != null) {
      batches.add(m);
    } else if (group == null) {
      execute(() -> runOne(m), m);
    } else {
      execute(() -> runGroup(group, m), m);
    }
  }

  /** The message's FIFO group, or {@code null} on a standard queue. */
  private String groupOf(Message m) {
    return settings.fifo() ? SqsMessages.groupOf(m) : null;
  }

  /** Hands work to the workers; once they are shut down (the runtime stops), releases instead. */
  private void execute(Runnable work, Message m) {
    try {
      workers.execute(work);
    } catch (java.util.concurrent.RejectedExecutionException stopped) {
      release(m);
    }
  }

  private void runOne(Message m) {
    if (stopping || !processor.intake().isOpen()) {
      release(m);
      return;
    }
    handle(m);
  }

  /**
   * Runs a FIFO group's messages in order; a nacked message holds its group, the rest is released.
   */
  private void runGroup(String group, Message first) {
    Message m = first;
    while (m != null) {
      if (stopping || !processor.intake().isOpen()) {
        release(m);
      } else if (handle(m) instanceof Disposition.NackRetry) {
        groups.drop(group).forEach(this::release);
        return;
      }
      m = groups.next(group);
    }
  }

  /**
   * A batch worker: takes batches until the runtime stops; a batch taken while intake is paused is
   * released (with the messages waiting behind its FIFO groups).
   */
  private void batchLoop() {
    while (!stopping) {
      List<Message> batch;
      try {
        batch = batches.take(INTAKE_CHECK);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (batch.isEmpty()) {
        continue;
      }
      if (stopping || !processor.intake().isOpen()) {
        batch.forEach(this::releaseWithGroup);
        continue;
      }
      List<Disposition> ds = handleAll(batch);
      for (int i = 0; i < batch.size(); i++) {
        String group = groupOf(batch.get(i));
        if (group == null) {
          continue;
        }
        if (ds.get(i) instanceof Disposition.NackRetry) {
          groups.drop(group).forEach(this::release);
        } else {
          Message next = groups.next(group);
          if (next != null) {
            batches.add(next);
          }
        }
      }
    }
  }

  private void releaseWithGroup(Message m) {
    release(m);
    String group = groupOf(m);
    if (group != null) {
      groups.drop(group).forEach(this::release);
    }
  }

  /** Runs a batch through the engine, then each message's delete, visibility change or DLQ send. */
  private List<Disposition> handleAll(List<Message> batch) {
    List<dev.siglo.consumer.Message> messages = new ArrayList<>(batch.size());
    for (Message m : batch) {
      heartbeat.start(m);
      messages.add(SqsMessages.toMessage(m, queueName));
    }
    try {
      return processor.processAll(
          messages,
          (i, d) -> followUps.applyOrRetry(batch.get(i), d, messages.get(i).deliveryAttempt()));
    } catch (RuntimeException e) {
      List<Disposition> out = new ArrayList<>(batch.size());
      for (Message m : batch) {
        out.add(followUps.notApplied(m, e));
      }
      return out;
    } finally {
      for (Message m : batch) {
        heartbeat.stop(m);
        inFlight.decrementAndGet();
        permits.release();
      }
    }
  }

  private Disposition handle(Message m) {
    heartbeat.start(m);
    try {
      dev.siglo.consumer.Message message = SqsMessages.toMessage(m, queueName);
      return processor.process(message, d -> followUps.apply(m, d, message.deliveryAttempt()));
    } catch (Exception e) {
      return followUps.notApplied(m, e);
    } finally {
      heartbeat.stop(m);
      inFlight.decrementAndGet();
      permits.release();
    }
  }

  private void release(Message m) {
    try {
      actions.changeVisibility(m, Duration.ZERO);
    } catch (RuntimeException e) {
      log.warn("releasing message {} failed: {}", m.messageId(), e.toString());
    } finally {
      inFlight.decrementAndGet();
      permits.release();
    }
  }

  /**
   * Stops the runtime on a fatal error; the termination future fails with it once the runtime has
   * stopped (pollers joined, workers ended, pending deletes flushed).
   */
  private void fail(Throwable t) {
    log.error("Siglo SQS consumer of {} stopped: {}", queueName, t.toString());
    failure.compareAndSet(null, t);
    Thread stopper = new Thread(() -> stop(Duration.ofSeconds(10)), "siglo-sqs-stop");
    stopper.setDaemon(true);
    stopper.start();
  }

  /**
   * Stops receiving, lets running handlers finish within {@code timeout}, releases unstarted
   * messages at once and flushes pending deletes. Idempotent.
   *
   * @param timeout the longest wait for running handlers
   */
  public synchronized void stop(Duration timeout) {
    if (stopping && workers.isShutdown()) {
      return;
    }
    stopping = true;
    for (Thread t : pollers) {
      try {
        // a long poll cannot be cut short; a poller returning later hands back what it received
        t.join(POLLER_GRACE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      workers.shutdownNow();
    }
    if (batches != null) {
      batches.drain().forEach(this::releaseWithGroup); // received, never started
    }
    heartbeat.close();
    actions.close();
    processor.close();
    Throwable fatal = failure.get();
    if (fatal == null) {
      termination.complete(null);
    } else {
      termination.completeExceptionally(fatal);
    }
  }
}
