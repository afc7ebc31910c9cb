package dev.siglo.sqs.internal;

import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.support.NamedThreads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Keeps long-running messages invisible: a message whose handler runs past a fraction of the
 * visibility timeout gets its visibility extended by another timeout, and its claim lease renewed
 * with it; the heartbeat stops when the handler ends. Thread-safe.
 */
final class Heartbeat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);

  /** A running message and, once its handler started, its claim. */
  static final class Running {
    final Message message;
    final long startedNanos = System.nanoTime();
    volatile long lastExtendedNanos = startedNanos;
    volatile String key;
    volatile ClaimToken token;

    Running(Message message) {
      this.message = message;
    }
  }

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final ScheduledExecutorService ticker;
  private final QueueActions actions;
  private final IdempotencyStore store;
  private final SqsSettings settings;

  Heartbeat(QueueActions actions, IdempotencyStore store, SqsSettings settings) {
    this.actions = actions;
    this.store = store;
    this.settings = settings;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            NamedThreads.daemon("siglo-sqs-heartbeat", false));
    long tick =
        Math.max(
            100,
            (long) (settings.visibilityTimeout().toMillis() * settings.heartbeatFraction() / 2));
    ticker.scheduleWithFixedDelay(this::beat, tick, tick, TimeUnit.MILLISECONDS);
  }

  Running start(Message m) {
    Running r = new Running(m);
    running.put(m.messageId(), r);
    return r;
  }

  void stop(Message m) {
    running.remove(m.messageId());
  }

  private void beat() {
    long threshold = (long) (settings.visibilityTimeout().toNanos() * settings.heartbeatFraction());
    long now = System.nanoTime();
    for (Running r : running.values()) {
      if (now - r.lastExtendedNanos < threshold) {
        continue;
      }
      try {
        actions.changeVisibility(r.message, settings.visibilityTimeout());
        r.lastExtendedNanos = now;
        if (r.key != null && r.token != null) {
          store.renewLease(r.key, r.token, settings.lease());
        }
      } catch (RuntimeException e) {
        log.warn("heartbeat of message {} failed: {}", r.message.messageId(), e.toString());
      }
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }

  /**
   * @return how long the runtime waits between beats (for tests and logs)
   */
  Duration tick() {
    return Duration.ofMillis(
        Math.max(
            100,
            (long) (settings.visibilityTimeout().toMillis() * settings.heartbeatFraction() / 2)));
  }
}
