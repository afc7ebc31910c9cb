package dev.siglo.consumer.store;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.support.Durations;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Group commit: callers on many threads submit single requests; one of them at a time (the leader)
 * sends everything queued so far as one batch call, and every caller gets its own answer. A caller
 * alone pays no wait (it leads at once); callers arriving while a batch is under way are sent
 * together in the next one. No thread of its own. Requests with the same identity never share a
 * batch (the later one waits for the next). A caller waiting for another's batch waits at most
 * {@code maxWait} and stops waiting when interrupted (its interrupt flag restored): it then gets an
 * {@link IdempotencyStoreUnavailableException}, which is transient; a request already sent in the
 * abandoned batch takes effect unseen (an unseen claim blocks its key only until its lease ends).
 * Thread-safe.
 *
 * @param <R> the request type
 * @param <A> the answer type
 */
public final class GroupCommit<R, A> {
  private final Function<List<R>, List<A>> batchCall;
  private final Function<R, Object> identity;
  private final int maxBatch;
  private final long maxWaitNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition settled = lock.newCondition();
  private final ArrayDeque<Slot<R, A>> queue = new ArrayDeque<>();
  private boolean leading;

  /**
   * @param batchCall answers a batch, one answer per request in order; what it throws is thrown to
   *     every caller of the batch
   * @param identity requests with equal identities never share a batch
   * @param maxBatch the largest batch
   * @param maxWait the longest a caller waits for another caller's batch
   */
  public GroupCommit(
      Function<List<R>, List<A>> batchCall,
      Function<R, Object> identity,
      int maxBatch,
      Duration maxWait) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be positive: " + maxBatch);
    }
    this.batchCall = batchCall;
    this.identity = identity;
    this.maxBatch = maxBatch;
    this.maxWaitNanos = Durations.requirePositive(maxWait, "maxWait").toNanos();
  }

  /**
   * Submits one request and waits for its answer (sent in this thread's batch or another's).
   *
   * @param request the request
   * @return its answer
   * @throws IdempotencyStoreUnavailableException when no answer came within {@code maxWait}, or the
   *     caller was interrupted while waiting
   * @throws RuntimeException what the batch call threw
   */
  public A submit(R request) {
    Slot<R, A> slot = new Slot<>(request);
    long deadline = System.nanoTime() + maxWaitNanos;
    lock.lock();
    try {
      queue.add(slot);
      while (!slot.done) {
        if (leading) {
          awaitBatch(slot, deadline);
          continue;
        }
        leading = true;
        List<Slot<R, A>> batch = take();
        lock.unlock();
        try {
          send(batch);
        } finally {
          lock.lock();
          leading = false;
          settled.signalAll();
        }
      }
    } finally {
      lock.unlock();
    }
    if (slot.failure != null) {
      throw slot.failure;
    }
    return slot.answer;
  }

  /** Waits, under the lock, for the batch under way; gives the slot up on timeout or interrupt. */
  private void awaitBatch(Slot<R, A> slot, long deadline) {
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      queue.remove(slot);
      throw new IdempotencyStoreUnavailableException(
          "no answer from the store within " + Duration.ofNanos(maxWaitNanos) + " (batched call)");
    }
    try {
      settled.awaitNanos(left);
    } catch (InterruptedException e) {
      queue.remove(slot);
      Thread.currentThread().interrupt();
      throw new IdempotencyStoreUnavailableException(
          "interrupted while waiting for a batched store call");
    }
  }

  /** Takes up to maxBatch queued requests with distinct identities, oldest first. */
  private List<Slot<R, A>> take() {
    List<Slot<R, A>> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
    Set<Object> identities = new HashSet<>();
    Iterator<Slot<R, A>> it = queue.iterator();
    while (it.hasNext() && batch.size() < maxBatch) {
      Slot<R, A> s = it.next();
      if (identities.add(identity.apply(s.request))) {
        batch.add(s);
        it.remove();
      }
    }
    return batch;
  }

  private void send(List<Slot<R, A>> batch) {
    List<R> requests = new ArrayList<>(batch.size());
    batch.forEach(s -> requests.add(s.request));
    try {
      List<A> answers = batchCall.apply(requests);
      if (answers.size() != batch.size()) {
        throw new IllegalStateException(
            "a batch of " + batch.size() + " got " + answers.size() + " answers");
      }
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).answer = answers.get(i);
      }
    } catch (RuntimeException e) {
      batch.forEach(s -> s.failure = e);
    } finally {
      batch.forEach(s -> s.done = true);
    }
  }

  /** A request and, once done, its answer or failure; read and written under the lock's edges. */
  private static final class Slot<R, A> {
    final R request;
    A answer;
    RuntimeException failure;
    boolean done;

    Slot(R request) {
      this.request = request;
    }
  }
}
