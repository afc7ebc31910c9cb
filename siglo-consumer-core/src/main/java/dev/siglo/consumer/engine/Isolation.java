package dev.siglo.consumer.engine;

import java.util.concurrent.Callable;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Runs a suspect message alone. When a JVM dies (out of memory, a native crash, a halt), every
 * claim it held is abandoned, the poison message's and its innocent neighbours' alike; counting
 * every takeover against every message would crash-loop the neighbours too. So a message whose
 * claim was just taken over gives it back ({@link RunAlone}), waits until no other message of this
 * processor runs, claims again and runs with nothing beside it: if the process dies now, only its
 * own claim is abandoned. Ordinary messages run side by side (a shared lock taken before they
 * claim, so none holds a claim while waiting behind a suspect). Fair: a waiting suspect holds back
 * new messages. Thread-safe.
 */
final class Isolation {
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

  /** Thrown by the delivery budget on a takeover: run this message again, alone. */
  static final class RunAlone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunAlone() {
      super("taken over: runs alone", null, false, false);
    }
  }

  /**
   * Runs {@code work} beside other work; when it asks to run alone, runs it again alone.
   *
   * @throws Exception what {@code work} throws
   */
  <V> V run(Callable<V> work) throws Exception {
    try {
      return holding(lock.readLock(), work);
    } catch (RunAlone suspect) {
      return holding(lock.writeLock(), work);
    }
  }

  private static <V> V holding(Lock l, Callable<V> work) throws Exception {
    l.lockInterruptibly();
    try {
      return work.call();
    } finally {
      l.unlock();
    }
  }
}
