package dev.siglo.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one benchmark run did: executions of the handler per slot (a record or a key), and progress
 * (messages finished) with the time of the first one and the time the last one became durable (the
 * commit or the delete that covers it). Thread-safe. The rate is measured over that window, as a
 * user sees it: consumer start-up and group joins are not part of it, the wait for the covering
 * commit is, for the baseline and for Siglo alike. The process's CPU time over the same window
 * gives the CPU per message (the benchmark JVM holds only the consumer: the servers run in
 * processes of their own), split by thread role in {@link #cpuSplit()}.
 */
final class Ledger {
  private final AtomicIntegerArray executions;
  private final long target;
  private final AtomicLong progress = new AtomicLong();
  private final CountDownLatch done = new CountDownLatch(1);
  private final AtomicLong firstNanos = new AtomicLong();
  private volatile CpuSplit firstCpu;
  private volatile long lastNanos;
  private volatile long durableNanos;
  private volatile CpuSplit durableCpu;
  private final List<Runnable> atDurable = new CopyOnWriteArrayList<>();

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
    if (firstNanos.get() == 0 && firstNanos.compareAndSet(0, now)) {
      firstCpu = CpuSplit.take();
    }
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
   * The last message became durable now: the commit (or delete) covering it was seen. Ends the
   * window; without it, the window ends at the last finished message.
   */
  void durable() {
    durableCpu = CpuSplit.take();
    durableNanos = System.nanoTime();
    atDurable.forEach(Runnable::run);
  }

  /**
   * Runs {@code action} when the window ends at {@link #durable()} (to read a server's counters).
   */
  void onDurable(Runnable action) {
    atDurable.add(action);
  }

  private long end() {
    return durableNanos != 0 ? durableNanos : lastNanos;
  }

  /**
   * @return messages per second over the window
   */
  double perSecond() {
    long nanos = Math.max(1, end() - firstNanos.get());
    return (target - 1) * 1e9 / nanos;
  }

  /**
   * @return the window's length in seconds
   */
  double seconds() {
    return (end() - firstNanos.get()) / 1e9;
  }

  /**
   * @return the benchmark process's CPU time per message over the window, in microseconds, or NaN
   *     when the window did not end at a durable point
   */
  double cpuMicrosPerMessage() {
    if (durableNanos == 0) {
      return Double.NaN;
    }
    return firstCpu.processNanosUntil(durableCpu) / 1e3 / Math.max(1, target - 1);
  }

  /**
   * @return the CPU per message over the window by thread role (see {@link CpuSplit}), or an empty
   *     map when the window did not end at a durable point
   */
  Map<String, Double> cpuSplit() {
    return durableNanos == 0 ? Map.of() : firstCpu.perMessageUntil(durableCpu, target - 1);
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
