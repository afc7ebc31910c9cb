package dev.siglo.consumer.support;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a task every period on one named daemon thread until {@link #close()}: the background beat
 * of the lease keeper, the intake gate and the SQS heartbeat. What the task decides, it decides on
 * an injected {@link Time}, so tests call the task directly; the ticker only drives it in
 * production. A task that throws is logged and runs again at the next tick. Thread-safe.
 */
public final class Ticker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Ticker.class);
  private final ScheduledExecutorService executor;

  private Ticker(ScheduledExecutorService executor) {
    this.executor = executor;
  }

  /**
   * Starts ticking at once.
   *
   * @param threadName the thread's name
   * @param every the delay between the end of one run and the start of the next; positive
   * @param task the task; must be thread-safe with its other callers
   * @return the running ticker
   */
  public static Ticker start(String threadName, Duration every, Runnable task) {
    Objects.requireNonNull(task, "task");
    long millis = Durations.requirePositive(every, "every").toMillis();
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(NamedThreads.daemon(threadName, false));
    executor.scheduleWithFixedDelay(
        () -> {
          try {
            task.run();
          } catch (RuntimeException e) {
            log.warn("{} failed: {}", threadName, e.toString(), e);
          }
        },
        millis,
        millis,
        TimeUnit.MILLISECONDS);
    return new Ticker(executor);
  }

  /** Stops ticking (a run under way is interrupted). Idempotent. */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
