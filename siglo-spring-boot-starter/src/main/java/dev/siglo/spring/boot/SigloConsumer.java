package dev.siglo.spring.boot;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.store.IdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One configured consumer ({@code siglo.consumers.<name>}) as the application sees it: what it
 * reads, whether it runs, why it is paused, and its store. Started and stopped by {@link
 * SigloConsumers}; thread-safe.
 */
public final class SigloConsumer {
  private final String name;
  private final SigloProperties.Broker broker;
  private final String destination;
  private final IdempotencyStore store;
  private final Supplier<CompletableFuture<Void>> start;
  private final Consumer<Duration> close;
  private final Map<String, Instant> pauses;
  private volatile CompletableFuture<Void> termination;
  private volatile boolean stopping;

  private SigloConsumer(
      String name,
      SigloProperties.Broker broker,
      String destination,
      IdempotencyStore store,
      Supplier<CompletableFuture<Void>> start,
      Consumer<Duration> close,
      Map<String, Instant> pauses) {
    this.name = name;
    this.broker = broker;
    this.destination = destination;
    this.store = store;
    this.start = start;
    this.close = close;
    this.pauses = pauses;
  }

  /**
   * What a runtime gives the starter: how to start and close it. For the starter's broker
   * factories; applications do not create consumers this way.
   *
   * @param name the consumer's name
   * @param broker its broker
   * @param destination what it reads (topics, queue URL)
   * @param store its idempotency store
   * @param start starts it, returning its termination
   * @param close closes it, draining running handlers within the duration
   * @param pauses the pause tracker registered as the runtime's listener
   * @return the consumer
   */
  public static SigloConsumer of(
      String name,
      SigloProperties.Broker broker,
      String destination,
      IdempotencyStore store,
      Supplier<CompletableFuture<Void>> start,
      Consumer<Duration> close,
      PauseTracker pauses) {
    return new SigloConsumer(
        Objects.requireNonNull(name, "name"),
        Objects.requireNonNull(broker, "broker"),
        Objects.requireNonNull(destination, "destination"),
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(start, "start"),
        Objects.requireNonNull(close, "close"),
        pauses.since);
  }

  /**
   * @return the name under {@code siglo.consumers}
   */
  public String name() {
    return name;
  }

  /**
   * @return the broker
   */
  public SigloProperties.Broker broker() {
    return broker;
  }

  /**
   * @return what it reads: the topics, or the queue URL
   */
  public String destination() {
    return destination;
  }

  /**
   * @return its idempotency store
   */
  public IdempotencyStore store() {
    return store;
  }

  /** Where a consumer is in its life. */
  public enum State {
    /** Built, not started. */
    NEW,
    /** Consuming (or paused, see {@link #pauses()}). */
    RUNNING,
    /** Draining: no new message starts, running handlers finish, then it commits and leaves. */
    STOPPING,
    /** Stopped after a close. */
    STOPPED,
    /** Stopped on a failure ({@link #failure()}). */
    FAILED
  }

  /**
   * @return where it is in its life
   */
  public State state() {
    CompletableFuture<Void> t = termination;
    if (t == null) {
      return stopping ? State.STOPPED : State.NEW;
    }
    if (t.isDone()) {
      return t.isCompletedExceptionally() ? State.FAILED : State.STOPPED;
    }
    return stopping ? State.STOPPING : State.RUNNING;
  }

  /**
   * @return whether it was started and has not stopped (running, paused or draining)
   */
  public boolean isRunning() {
    CompletableFuture<Void> t = termination;
    return t != null && !t.isDone();
  }

  /**
   * @return the failure that stopped it, when it stopped on one
   */
  public Optional<Throwable> failure() {
    CompletableFuture<Void> t = termination;
    if (t == null || !t.isCompletedExceptionally()) {
      return Optional.empty();
    }
    try {
      t.join();
      return Optional.empty();
    } catch (CompletionException e) {
      return Optional.of(e.getCause() == null ? e : e.getCause());
    } catch (java.util.concurrent.CancellationException e) {
      return Optional.of(e);
    }
  }

  /**
   * @return why intake is paused now (store outage, a pause condition), each with its start; empty
   *     when not paused
   */
  public Map<String, Instant> pauses() {
    return Map.copyOf(pauses);
  }

  synchronized void start() {
    if (termination == null) {
      termination = start.get();
    }
  }

  void close(Duration drain) {
    stopping = true;
    close.accept(drain);
  }

  /**
   * Tracks a runtime's {@link SigloEvent.Paused} and {@link SigloEvent.Resumed} events, for {@link
   * #pauses()}. Register it as the runtime's listener before building it.
   */
  public static final class PauseTracker implements SigloEventListener {
    private final Map<String, Instant> since = new ConcurrentHashMap<>();

    /** A tracker with no pause. */
    public PauseTracker() {}

    @Override
    public void onEvent(SigloEvent event) {
      if (event instanceof SigloEvent.Paused p) {
        since.putIfAbsent(p.reason(), Instant.now());
      } else if (event instanceof SigloEvent.Resumed r) {
        since.remove(r.reason());
      }
    }
  }
}
