package dev.siglo.consumer.engine;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs a suspect message alone. When a JVM dies (out of memory, a native crash, a halt), every
 * claim it held is abandoned, the poison message's and its innocent neighbours' alike; counting
 * every takeover against every message would crash-loop the neighbours too. So a message whose
 * claim was just taken over gives it back ({@link RunAlone}), waits until no other message of this
 * processor runs, claims again and runs with nothing beside it: if the process dies now, only its
 * own claim is abandoned. Ordinary messages run side by side (they enter before they claim, so none
 * holds a claim while waiting behind a suspect). A waiting suspect holds back new messages, and
 * suspects run one at a time, in arrival order. Thread-safe.
 *
 * <p>An ordinary message costs a striped counter increment and decrement and two volatile reads (no
 * shared lock word, no per-thread hold count): a suspect raises {@code alone}, then waits for the
 * counter to drain; a message that counted itself in and then sees {@code alone} counts itself out
 * and waits. Either the message sees the flag or the suspect sees the message's count, never
 * neither.
 */
final class Isolation {
  private final LongAdder running = new LongAdder();
  private final ReentrantLock suspects = new ReentrantLock(true);
  private final Object monitor = new Object();
  private volatile boolean alone;

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
   * @throws InterruptedException when interrupted while waiting to run
   */
  <V> V run(Callable<V> work) throws Exception {
    enter();
    try {
      return work.call();
    } catch (RunAlone suspect) {
      // run again below, once this thread no longer counts as running
    } finally {
      exit();
    }
    return runAlone(work);
  }

  /**
   * @return whether a suspect waits or runs now (new messages wait)
   */
  boolean suspectPending() {
    return alone;
  }

  private void enter() throws InterruptedException {
    while (true) {
      if (alone) {
        synchronized (monitor) {
          while (alone) {
            monitor.wait();
          }
        }
      }
      running.increment();
      if (!alone) {
        return;
      }
      exit(); // a suspect came first: let it drain, then try again
    }
  }

  private void exit() {
    running.decrement();
    if (alone) {
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }

  /**
   * Runs {@code work} with nothing of this processor beside it (a suspect known in advance: a batch
   * message whose claim was taken over). Call it from a thread that does not run other work now.
   *
   * @throws Exception what {@code work} throws
   * @throws InterruptedException when interrupted while waiting to run
   */
  <V> V runAlone(Callable<V> work) throws Exception {
    suspects.lockInterruptibly();
    try {
      alone = true;
      synchronized (monitor) {
        while (running.sum() != 0) {
          monitor.wait();
        }
      }
      return work.call();
    } finally {
      if (!suspects.hasQueuedThreads()) {
        alone = false; // a suspect arriving after this raises it again itself
      }
      suspects.unlock();
      synchronized (monitor) {
        monitor.notifyAll();
      }
    }
  }
}
