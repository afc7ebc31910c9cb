package dev.siglo.sqs.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Received messages waiting for a batch worker: a worker takes up to the batch size, waiting at
 * most the linger after the first one for the batch to fill. Thread-safe.
 */
final class MessageBatches {
  private final LinkedBlockingQueue<Message> ready = new LinkedBlockingQueue<>();
  private final int size;
  private final long lingerNanos;

  /**
   * @param size the most messages in one batch
   * @param linger how long a batch that is not full waits for more
   */
  MessageBatches(int size, Duration linger) {
    this.size = size;
    this.lingerNanos = linger.toNanos();
  }

  /** A message that may run now. */
  void add(Message m) {
    ready.add(m);
  }

  /**
   * Takes a batch: waits up to {@code maxWait} for its first message, then up to the linger for the
   * rest.
   *
   * @return the batch; empty when no message arrived within {@code maxWait}
   * @throws InterruptedException when interrupted while waiting for the first message
   */
  List<Message> take(Duration maxWait) throws InterruptedException {
    Message first = ready.poll(maxWait.toNanos(), TimeUnit.NANOSECONDS);
    if (first == null) {
      return List.of();
    }
    List<Message> batch = new ArrayList<>(Math.min(size, 64));
    batch.add(first);
    long deadline = System.nanoTime() + lingerNanos;
    while (batch.size() < size) {
      ready.drainTo(batch, size - batch.size());
      long left = deadline - System.nanoTime();
      if (batch.size() >= size || left <= 0) {
        break;
      }
      Message next;
      try {
        next = ready.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break; // run what was taken: it is in flight already
      }
      if (next == null) {
        break;
      }
      batch.add(next);
    }
    return batch;
  }

  /**
   * @return every message still waiting (the runtime stops: they are released)
   */
  List<Message> drain() {
    List<Message> out = new ArrayList<>();
    ready.drainTo(out);
    return out;
  }
}
