package dev.siglo.consumer.support;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The engine's and the runtimes' view of time: a monotonic tick and an interruptible sleep. {@link
 * #SYSTEM} is the real thing; tests inject a manual implementation so settle, backoff, heartbeat
 * and commit intervals are tested in milliseconds of real time. Implementations are thread-safe.
 */
public interface Time {
  /** Real time: {@link System#nanoTime()} and {@link TimeUnit#sleep(long)}. */
  Time SYSTEM =
      new Time() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void sleep(Duration duration) throws InterruptedException {
          TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        }

        @Override
        public String toString() {
          return "Time.SYSTEM";
        }
      };

  /**
   * @return a monotonic time in nanoseconds, meaningful only as a difference to another reading
   */
  long nanoTime();

  /**
   * Waits for a duration; returns at once for a zero or negative duration.
   *
   * @param duration how long to wait
   * @throws InterruptedException when the thread is interrupted while waiting (its interrupt flag
   *     is then clear, as with {@link Thread#sleep(long)})
   */
  void sleep(Duration duration) throws InterruptedException;
}
