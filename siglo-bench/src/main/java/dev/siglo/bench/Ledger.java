package dev.siglo.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one benchmark run did: executions of the handler per slot (a record or a key), and progress
 * (messages finished) with the time of the first and the last one. Thread-safe. The rate is
 * measured between the first and the last finished message, so consumer start-up and group joins
 * are not part of it, for the baseline and for Siglo alike.
 */
final class Ledger {
  private final AtomicIntegerArray executions;
  private final long target;
  private final AtomicLong progress = new AtomicLong();
  private final CountDownLatch done = new CountDownLatch(1);
  private final AtomicLong firstNanos = new AtomicLong();
  private volatile long lastNanos;

  /**
   * @param slots how many distinct records or keys the run has
   * @param target how many finished messages end the run
   */
  Ledger(int slots, long target) {
    this.executions = new AtomicIntegerArray(slots);
    this.target = target;
  }

  /** The handler ran (a side effect happened) for {@code slot}. */
  void executed(int slot) {
    executions.incrementAndGet(slot);
  }

  /** One message finished (handled, or settled as a duplicate). */
  void finished() {
    long now = System.nanoTime();
    firstNanos.compareAndSet(0, now);
    long n = progress.incrementAndGet();
    if (n == target) {
      lastNanos = now;
      done.countDown();
    }
  }

  /**
   * @param timeout the longest wait
   * @return whether the run reached its target in time
   */
  boolean await(Duration timeout) throws InterruptedException {
    return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * @return messages finished per second, between the first and the last one
   */
  double perSecond() {
    long nanos = Math.max(1, lastNanos - firstNanos.get());
    return (target - 1) * 1e9 / nanos;
  }

  /**
   * @return seconds between the first and the last finished message
   */
  double seconds() {
    return (lastNanos - firstNanos.get()) / 1e9;
  }

  /**
   * @return how many finished messages end the run
   */
  long target() {
    return target;
  }

  /**
   * @return messages finished so far
   */
  long progress() {
    return progress.get();
  }

  /**
   * @return what the run did, slot by slot
   */
  Tally tally() {
    int lost = 0;
    int duplicated = 0;
    long total = 0;
    for (int i = 0; i < executions.length(); i++) {
      int n = executions.get(i);
      total += n;
      if (n == 0) {
        lost++;
      } else if (n > 1) {
        duplicated++;
      }
    }
    return new Tally(executions.length(), total, lost, duplicated);
  }

  /**
   * Executions per slot.
   *
   * @param slots distinct records or keys
   * @param executions handler executions in all
   * @param lost slots never executed
   * @param duplicated slots executed more than once
   */
  record Tally(int slots, long executions, int lost, int duplicated) {
    /** Fails the benchmark unless every slot ran exactly once. */
    void requireExactlyOnce(String run) {
      if (lost != 0 || duplicated != 0 || executions != slots) {
        throw new BenchmarkFailure(
            run
                + ": expected every one of "
                + slots
                + " slots executed exactly once, got "
                + executions
                + " executions, "
                + lost
                + " lost, "
                + duplicated
                + " executed more than once");
      }
    }

    /** Fails the benchmark when a slot never ran (at-least-once baselines may repeat). */
    void requireNoneLost(String run) {
      if (lost != 0) {
        throw new BenchmarkFailure(run + ": " + lost + " of " + slots + " slots never executed");
      }
    }
  }
}
