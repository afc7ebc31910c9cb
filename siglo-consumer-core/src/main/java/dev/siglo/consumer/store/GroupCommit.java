package dev.siglo.consumer.store;

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
 * batch (the later one waits for the next). Thread-safe.
 *
 * @param <R> the request type
 * @param <A> the answer type
 */
public final class GroupCommit<R, A> {
  private final Function<List<R>, List<A>> batchCall;
  private final Function<R, Object> identity;
  private final int maxBatch;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition settled = lock.newCondition();
  private final ArrayDeque<Slot<R, A>> queue = new ArrayDeque<>();
  private boolean leading;

  /**
   * @param batchCall answers a batch, one answer per request in order; what it throws is thrown to
   *     every caller of the batch
   * @param identity requests with equal identities never share a batch
   * @param maxBatch the largest batch
   */
  public GroupCommit(
      Function<List<R>, List<A>> batchCall, Function<R, Object> identity, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be positive: " + maxBatch);
    }
    this.batchCall = batchCall;
    this.identity = identity;
    this.maxBatch = maxBatch;
  }

  /**
   * Submits one request and waits for its answer (sent in this thread's batch or another's).
   *
   * @param request the request
   * @return its answer
   * @throws RuntimeException what the batch call threw
   */
  public A submit(R request) {
    Slot<R, A> slot = new Slot<>(request);
    lock.lock();
    try {
      queue.add(slot);
      while (!slot.done) {
        if (leading) {
          settled.awaitUninterruptibly();
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
