package dev.siglo.consumer.engine;

import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Time that moves only when someone sleeps on it: a sleep returns at once after advancing the clock
 * by its duration, and is recorded. An optional callback sees the clock after every sleep, so a
 * test can make the world change at a given instant (a holder completing after 3 s, say).
 */
final class ManualTime implements Time {
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

  /** Runs {@code callback} with the nanoseconds elapsed since creation after every sleep. */
  ManualTime afterSleep(LongConsumer callback) {
    this.afterSleep = callback;
    return this;
  }

  List<Duration> sleeps() {
    return sleeps;
  }

  Duration slept() {
    return sleeps.stream().reduce(Duration.ZERO, Duration::plus);
  }
}
