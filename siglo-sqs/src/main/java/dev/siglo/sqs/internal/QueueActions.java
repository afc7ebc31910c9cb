package dev.siglo.sqs.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.spi.DeadLetters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * What the runtime does to messages: deletes and visibility changes (nack with backoff, heartbeat,
 * release) are queued by the workers and sent by the runtime's own flusher threads in batches of
 * ten, so no worker waits on another's request. There are as many flushers as pollers (at least
 * two), so deletes leave as fast as receives bring messages in: one flusher sending one batch at a
 * time fell behind the pollers, and the queue emptied long after the last message was handled.
 * Visibility changes wake a flusher at once; deletes wake one when ten are pending (at once on FIFO
 * queues) and are sent at least every delete interval. Failed entries are retried and reported,
 * never dropped silently; an entry SQS says is no longer in flight (deleted, or its visibility
 * lapsed) is dropped. Dead-letter sends are made by the calling worker, before the message's delete
 * is queued. After {@link #close()}, visibility changes are sent at once by the caller.
 * Thread-safe.
 */
final class QueueActions implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QueueActions.class);
  private static final int MAX_TRIES = 5;
  private static final int BATCH = 10;
  private static final long MAX_VISIBILITY_SECONDS = 43_200;

  /** How long the flusher waits after a request failed before it tries again. */
  private static final Duration FAILURE_PAUSE = Duration.ofMillis(500);

  /** Batch entry error codes that mean the message is no longer in flight: nothing to retry. */
  private static final Set<String> GONE =
      Set.of(
          "ReceiptHandleIsInvalid",
          "MessageNotInflight",
          "AWS.SimpleQueueService.MessageNotInflight");

  /** One queued delete or visibility change. */
  private record Pending(String receipt, String messageId, int seconds, int tries) {
    Pending retried() {
      return new Pending(receipt, messageId, seconds, tries + 1);
    }
  }

  private final SqsClient sqs;
  private final SqsRuntimeConfig settings;
  private final Queue<Pending> deletes = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pendingDeletes = new AtomicInteger();
  private final Queue<Pending> visibility = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pendingVisibility = new AtomicInteger();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final List<Thread> flushers = new ArrayList<>();
  private volatile boolean closed;

  QueueActions(SqsClient sqs, SqsRuntimeConfig settings) {
    this.sqs = sqs;
    this.settings = settings;
    for (int i = 1; i <= flushers(settings); i++) {
      Thread flusher = new Thread(this::flushLoop, "siglo-sqs-flusher-" + i);
      flusher.setDaemon(true);
      flusher.start();
      flushers.add(flusher);
    }
  }

  /** As many flushers as pollers, at least two: a delete batch leaves per receive of ten. */
  static int flushers(SqsRuntimeConfig settings) {
    return Math.max(2, settings.pollers());
  }

  /** Acknowledges a message: queues its delete (sent in a batch; at once on FIFO queues). */
  void delete(Message m) {
    deletes.add(new Pending(m.receiptHandle(), m.messageId(), 0, 0));
    if (pendingDeletes.incrementAndGet() >= BATCH || settings.fifo()) {
      wake();
    }
  }

  /** Makes a message visible again after {@code delay} (0 releases it at once). */
  void changeVisibility(Message m, Duration delay) {
    int seconds =
        (int) Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, (delay.toMillis() + 999) / 1000));
    Pending p = new Pending(m.receiptHandle(), m.messageId(), seconds, 0);
    if (closed) {
      sqs.changeMessageVisibility(
          b ->
              b.queueUrl(settings.queueUrl())
                  .receiptHandle(p.receipt())
                  .visibilityTimeout(p.seconds()));
      return;
    }
    visibility.add(p);
    pendingVisibility.incrementAndGet();
    wake();
  }

  /** Sends a copy to the dead-letter queue with reason attributes. */
  void sendToDeadLetterQueue(
      Message m, String reason, ErrorClass errorClass, Throwable cause, int attempts) {
    Map<String, MessageAttributeValue> attributes = new HashMap<>(m.messageAttributes());
    DeadLetters.metadata(reason, errorClass, cause, attempts)
        .forEach((n, v) -> put(attributes, n, v));
    put(attributes, DeadLetters.ORIGINAL_MESSAGE_ID, m.messageId());
    String group = SqsMessages.groupOf(m);
    sqs.sendMessage(
        b -> {
          b.queueUrl(settings.deadLetterQueueUrl())
              .messageBody(m.body())
              .messageAttributes(attributes);
          if (group != null) {
            b.messageGroupId(group).messageDeduplicationId(m.messageId());
          }
        });
  }

  private static void put(
      Map<String, MessageAttributeValue> attributes, String name, String value) {
    attributes.put(
        DeadLetters.SQS_ATTRIBUTE_PREFIX + name,
        MessageAttributeValue.builder().dataType("String").stringValue(value).build());
  }

  private void wake() {
    lock.lock();
    try {
      work.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * A flusher: sends visibility changes as soon as they are queued, full delete batches as soon as
   * they fill (every delete on FIFO queues), and whatever deletes are pending at least every delete
   * interval.
   */
  private void flushLoop() {
    long interval = settings.deleteInterval().toNanos();
    long nextPartial = System.nanoTime() + interval;
    boolean failed = false;
    while (!closed) {
      lock.lock();
      try {
        long wait = failed ? FAILURE_PAUSE.toNanos() : nextPartial - System.nanoTime();
        if (wait > 0 && (failed || !ready())) {
          work.awaitNanos(wait);
        }
      } catch (InterruptedException e) {
        return; // close() interrupts flushers that do not stop by themselves
      } finally {
        lock.unlock();
      }
      boolean partialDue = System.nanoTime() - nextPartial >= 0;
      failed = !flushVisibility() | !flushDeletes(partialDue || settings.fifo());
      if (partialDue) {
        nextPartial = System.nanoTime() + interval;
      }
    }
  }

  /** Whether something is to be sent before the delete interval ends. */
  private boolean ready() {
    int n = pendingDeletes.get();
    return pendingVisibility.get() > 0 || n >= BATCH || (settings.fifo() && n > 0);
  }

  /**
   * Sends every queued visibility change, in batches of ten.
   *
   * @return false when a request failed (its entries are queued again)
   */
  boolean flushVisibility() {
    return flush(
        visibility,
        pendingVisibility,
        true,
        batch ->
            sqs.changeMessageVisibilityBatch(
                    b ->
                        b.queueUrl(settings.queueUrl())
                            .entries(
                                entries(
                                    batch,
                                    (i, p) ->
                                        ChangeMessageVisibilityBatchRequestEntry.builder()
                                            .id(i)
                                            .receiptHandle(p.receipt())
                                            .visibilityTimeout(p.seconds())
                                            .build())))
                .failed(),
        "changing the visibility of");
  }

  /**
   * Sends queued deletes in batches of ten.
   *
   * @param partial whether a last batch of fewer than ten goes too
   * @return false when a request failed (its entries are queued again)
   */
  boolean flushDeletes(boolean partial) {
    return flush(
        deletes,
        pendingDeletes,
        partial,
        batch ->
            sqs.deleteMessageBatch(
                    r ->
                        r.queueUrl(settings.queueUrl())
                            .entries(
                                entries(
                                    batch,
                                    (i, p) ->
                                        DeleteMessageBatchRequestEntry.builder()
                                            .id(i)
                                            .receiptHandle(p.receipt())
                                            .build())))
                .failed(),
        "deleting");
  }

  /**
   * Sends a queue's entries in batches of ten (the last one short only when {@code partial}), until
   * it holds fewer than that or a request fails.
   *
   * @return false when a request itself failed (its entries are queued again)
   */
  private boolean flush(
      Queue<Pending> queue,
      AtomicInteger count,
      boolean partial,
      Function<List<Pending>, List<BatchResultErrorEntry>> call,
      String what) {
    for (List<Pending> batch; !(batch = take(queue, count, partial)).isEmpty(); ) {
      if (!send(batch, call, queue, count, what)) {
        return false; // wait for the next round
      }
    }
    return true;
  }

  /**
   * Takes a batch off a queue, reserving its entries on the queue's count first, so flushers
   * running at once take full batches of different entries (an entry is counted only once it is on
   * the queue).
   *
   * @return ten entries, or fewer when {@code partial} and fewer are queued, or none
   */
  private static List<Pending> take(Queue<Pending> queue, AtomicInteger count, boolean partial) {
    int n;
    int size;
    do {
      n = count.get();
      size = Math.min(n, BATCH);
      if (size <= 0 || size < BATCH && !partial) {
        return List.of();
      }
    } while (!count.compareAndSet(n, n - size));
    List<Pending> batch = new ArrayList<>(size);
    for (Pending p; batch.size() < size && (p = queue.poll()) != null; ) {
      batch.add(p);
    }
    return batch;
  }

  private interface Entry<E> {
    E build(String id, Pending p);
  }

  private static <E> List<E> entries(List<Pending> batch, Entry<E> entry) {
    List<E> out = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      out.add(entry.build(String.valueOf(i), batch.get(i)));
    }
    return out;
  }

  /**
   * Sends one batch; failed entries go back on their queue (up to {@link #MAX_TRIES}).
   *
   * @return whether the request itself went through
   */
  private boolean send(
      List<Pending> batch,
      Function<List<Pending>, List<BatchResultErrorEntry>> call,
      Queue<Pending> queue,
      AtomicInteger count,
      String what) {
    List<BatchResultErrorEntry> failed;
    try {
      failed = call.apply(batch);
    } catch (RuntimeException e) {
      batch.forEach(p -> retry(p, queue, count, what, e.toString()));
      return false;
    }
    for (BatchResultErrorEntry f : failed) {
      Pending p = batch.get(Integer.parseInt(f.id()));
      if (GONE.contains(f.code())) {
        log.debug("{} message {}: no longer in flight ({})", what, p.messageId(), f.code());
      } else {
        retry(p, queue, count, what, f.code() + ": " + f.message());
      }
    }
    return true;
  }

  private void retry(
      Pending p, Queue<Pending> queue, AtomicInteger count, String what, String why) {
    if (p.tries() + 1 >= MAX_TRIES) {
      log.error(
          "{} message {} failed {} times ({}); it will be redelivered and settle as a duplicate",
          what,
          p.messageId(),
          MAX_TRIES,
          why);
      return;
    }
    log.warn("{} message {} failed ({}); retrying", what, p.messageId(), why);
    queue.add(p.retried());
    count.incrementAndGet();
  }

  /**
   * Stops the flushers and sends what is still queued from the calling thread (failed entries tried
   * up to {@link #MAX_TRIES} times). Visibility changes after this are sent at once by their
   * caller.
   */
  @Override
  public void close() {
    closed = true;
    lock.lock();
    try {
      work.signalAll();
    } finally {
      lock.unlock();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    for (Thread flusher : flushers) {
      try {
        flusher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      flusher.interrupt();
    }
    for (int i = 0;
        i < MAX_TRIES && (pendingVisibility.get() > 0 || pendingDeletes.get() > 0);
        i++) {
      flushVisibility();
      flushDeletes(true);
    }
  }
}
