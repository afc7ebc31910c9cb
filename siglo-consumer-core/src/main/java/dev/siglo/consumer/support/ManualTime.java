package dev.siglo.consumer.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * {@link Time} for tests: it moves only when someone sleeps on it or the test advances it. A sleep
 * returns at once after advancing the clock by its duration, and is recorded; an optional callback
 * sees the elapsed time after every sleep, so a test can make the world change at a given instant
 * (a holder completing after 3 s, say). Seconds of settle, backoff, heartbeat or commit intervals
 * are then tested in microseconds. Thread-safe.
 */
public final class ManualTime implements Time {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  private final long start = nanos.get();
  private volatile LongConsumer afterSleep = elapsed -> {};

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public void sleep(Duration duration) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    sleeps.add(duration);
    afterSleep.accept(nanos.addAndGet(Math.max(0, duration.toNanos())) - start);
  }

  /**
   * Runs {@code callback} with the nanoseconds elapsed since creation after every sleep.
   *
   * @param callback told of the elapsed time, on the sleeping thread
   * @return this
   */
  public ManualTime afterSleep(LongConsumer callback) {
    this.afterSleep = callback;
    return this;
  }

  /**
   * Moves the clock forward without sleeping (another thread's time passing).
   *
   * @param duration how far
   */
  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  /**
   * @return every sleep so far, in order
   */
  public List<Duration> sleeps() {
    return sleeps;
  }

  /**
   * @return the sum of all sleeps so far
   */
  public Duration slept() {
    return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
  }
}
