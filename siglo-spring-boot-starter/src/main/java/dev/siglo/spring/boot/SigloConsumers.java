package dev.siglo.spring.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.SmartLifecycle;

/**
 * The application's Siglo consumers, started and stopped with its context.
 *
 * <p><b>Lifecycle.</b> A {@link SmartLifecycle} in phase {@link #PHASE} (Spring Kafka's listener
 * containers' phase): it starts after every singleton, the stores among them, was created, after
 * the web server, and stops before it. {@link #stop(Runnable)} stops every consumer at once: no new
 * message starts, running handlers get the drain time to finish, their offsets are committed (or
 * messages deleted), and the callback runs once all are closed. The drain time is {@code
 * spring.lifecycle.timeout-per-shutdown-phase} less a margin for the commit, so the stop ends
 * within Boot's budget for the phase. The stores are closed after that, when the context destroys
 * its beans. A consumer runs once: after a stop, {@link #start()} does not restart it (Boot stops
 * the lifecycle only when the context closes). {@link #close()} (the bean's destroy method) stops
 * whatever still runs, for a context whose start-up failed after some consumers started.
 */
public final class SigloConsumers implements SmartLifecycle, AutoCloseable {
  /** The phase: {@code SmartLifecycle.DEFAULT_PHASE - 100}. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 100;

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(SigloConsumers.class);

  private final Map<String, SigloConsumer> consumers = new LinkedHashMap<>();
  private final boolean autoStartup;
  private final Duration drain;
  private volatile boolean running;

  /**
   * @param consumers the consumers, in start order
   * @param autoStartup whether they start with the context
   * @param drain how long running handlers get on stop
   */
  public SigloConsumers(List<SigloConsumer> consumers, boolean autoStartup, Duration drain) {
    consumers.forEach(c -> this.consumers.put(c.name(), c));
    this.autoStartup = autoStartup;
    this.drain = Objects.requireNonNull(drain, "drain");
  }

  /**
   * @return the consumers, in the order configured
   */
  public List<SigloConsumer> consumers() {
    return List.copyOf(consumers.values());
  }

  /**
   * @param name the name under {@code siglo.consumers}
   * @return the consumer
   * @throws IllegalArgumentException when there is none of that name
   */
  public SigloConsumer consumer(String name) {
    SigloConsumer c = consumers.get(name);
    if (c == null) {
      throw new IllegalArgumentException(
          "no Siglo consumer '" + name + "' (configured: " + consumers.keySet() + ")");
    }
    return c;
  }

  /**
   * @return how long running handlers get on stop
   */
  public Duration drainTimeout() {
    return drain;
  }

  @Override
  public synchronized void start() {
    running = true; // before: a consumer failing to start leaves the started ones to close()
    consumers.values().forEach(SigloConsumer::start);
  }

  @Override
  public void stop() {
    closeAll();
  }

  @Override
  public void stop(Runnable callback) {
    try {
      closeAll();
    } finally {
      callback.run();
    }
  }

  private void closeAll() {
    if (!consumers.isEmpty()) {
      log.info(
          "stopping {} Siglo consumer(s), draining running handlers for up to {}",
          consumers.size(),
          drain);
    }
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (SigloConsumer c : consumers.values()) {
      closing.add(CompletableFuture.runAsync(() -> c.close(drain), r -> startCloser(c, r)));
    }
    CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new))
        .exceptionally(e -> null)
        .join();
    running = false;
  }

  private static void startCloser(SigloConsumer c, Runnable r) {
    Thread t = new Thread(r, "siglo-close-" + c.name());
    t.setDaemon(true);
    t.start();
  }

  /** Stops the consumers still running, draining them; idempotent. */
  @Override
  public void close() {
    if (running) {
      closeAll();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
