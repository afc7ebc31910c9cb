package dev.siglo.sqs.internal;

import dev.siglo.consumer.support.Ticker;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Keeps long-running messages invisible: a message whose handler runs past a fraction of the
 * visibility timeout gets its visibility extended by another timeout; the heartbeat stops when the
 * handler ends. (Claim leases are renewed by the engine, on the lease's own cadence.) Time is
 * injected: {@link #beat()} decides on {@link Time#nanoTime()}, and {@link #startTicking()} calls
 * it on a named daemon thread. Thread-safe.
 */
final class Heartbeat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
  private static final long MIN_TICK_MILLIS = 100;

  /** A running message. */
  static final class Running {
    final Message message;
    volatile long lastExtendedNanos;

    Running(Message message, long startedNanos) {
      this.message = message;
      this.lastExtendedNanos = startedNanos;
    }
  }

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final BiConsumer<Message, Duration> extendVisibility;
  private final SqsRuntimeConfig settings;
  private final Time time;
  private Ticker ticker;

  /**
   * @param extendVisibility changes a message's visibility timeout
   * @param settings the visibility timeout and heartbeat fraction
   * @param time the time the heartbeat decides on
   */
  Heartbeat(BiConsumer<Message, Duration> extendVisibility, SqsRuntimeConfig settings, Time time) {
    this.extendVisibility = extendVisibility;
    this.settings = settings;
    this.time = time;
  }

  /** Calls {@link #beat()} every {@link #tick()} on a daemon thread until {@link #close()}. */
  synchronized void startTicking() {
    if (ticker == null) {
      ticker = Ticker.start("siglo-sqs-heartbeat", tick(), this::beat);
    }
  }

  void start(Message m) {
    running.put(m.messageId(), new Running(m, time.nanoTime()));
  }

  void stop(Message m) {
    running.remove(m.messageId());
  }

  /** Extends every message that ran past the threshold since its last extension. */
  void beat() {
    long threshold = (long) (settings.visibilityTimeout().toNanos() * settings.heartbeatFraction());
    long now = time.nanoTime();
    for (Running r : running.values()) {
      if (now - r.lastExtendedNanos < threshold) {
        continue;
      }
      try {
        extendVisibility.accept(r.message, settings.visibilityTimeout());
        r.lastExtendedNanos = now;
      } catch (RuntimeException e) {
        log.warn("heartbeat of message {} failed: {}", r.message.messageId(), e.toString());
      }
    }
  }

  @Override
  public synchronized void close() {
    if (ticker != null) {
      ticker.close();
    }
  }

  /**
   * @return how long the runtime waits between beats: half the extension threshold, at least 100 ms
   */
  Duration tick() {
    return Duration.ofMillis(
        Math.max(
            MIN_TICK_MILLIS,
            (long) (settings.visibilityTimeout().toMillis() * settings.heartbeatFraction() / 2)));
  }
}
