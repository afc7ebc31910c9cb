package dev.siglo.consumer.engine;

import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.support.Ticker;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's {@link IntakeGate}: closed while the store is down (reported by the engine, probed
 * with a cheap read from {@link #FIRST_PROBE} doubling to {@link #MAX_PROBE}) or while a pause
 * condition holds (checked every {@link #CHECK_EVERY}). {@link #check()} decides on the injected
 * {@link Time}; a named daemon thread calls it every {@link #TICK}, started with the first outage
 * report or at once when there are pause conditions. Emits {@link SigloEvent.Paused} and {@link
 * SigloEvent.Resumed}. As the engine's {@link StoreOutage}, its probe is the only store call
 * renewals and completions wait on while the store is down. Thread-safe.
 */
final class StoreGate implements IntakeGate, StoreOutage, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StoreGate.class);

  /** The first probe of a store reported down comes this long after the report. */
  static final Duration FIRST_PROBE = Duration.ofMillis(250);

  /** Probes of a store that stays down are at most this far apart. */
  static final Duration MAX_PROBE = Duration.ofSeconds(2);

  /** How often the pause conditions are checked. */
  static final Duration CHECK_EVERY = Duration.ofMillis(100);

  static final Duration TICK = Duration.ofMillis(50);

  private final IdempotencyStore store;
  private final String probeKey;
  private final List<PauseCondition> conditions;
  private final Time time;
  private final EventSink events;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition opened = lock.newCondition();
  private final Condition storeBack = lock.newCondition();
  private final ReentrantLock checking = new ReentrantLock();
  private volatile String reason;
  private long pausedAtNanos;
  private volatile boolean storeDown;
  private long nextProbeNanos;
  private long probeBackoffNanos;
  private long nextCheckNanos;
  private Ticker ticker;
  private boolean closed;

  StoreGate(
      IdempotencyStore store,
      String probeKey,
      List<PauseCondition> conditions,
      Time time,
      EventSink events) {
    this.store = store;
    this.probeKey = probeKey;
    this.conditions = List.copyOf(conditions);
    this.time = time;
    this.events = events;
  }

  @Override
  public Optional<String> pausedReason() {
    return Optional.ofNullable(reason);
  }

  @Override
  public boolean awaitOpen(Duration timeout) throws InterruptedException {
    if (reason == null) {
      return true;
    }
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (reason != null) {
        if (nanos <= 0) {
          return false;
        }
        nanos = opened.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean storeDown() {
    return storeDown;
  }

  @Override
  public boolean awaitStore(Duration timeout) throws InterruptedException {
    if (!storeDown) {
      return true;
    }
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (storeDown && !closed) {
        if (nanos <= 0) {
          return false;
        }
        nanos = storeBack.awaitNanos(nanos);
      }
      return !storeDown;
    } finally {
      lock.unlock();
    }
  }

  /** The engine saw the store unavailable: close the gate and probe until the store answers. */
  @Override
  public void storeUnavailable(Throwable cause) {
    lock.lock();
    try {
      if (storeDown || closed) {
        return;
      }
      storeDown = true;
      probeBackoffNanos = FIRST_PROBE.toNanos();
      nextProbeNanos = time.nanoTime() + probeBackoffNanos;
      log.warn(
          "idempotency store unavailable ({}): intake paused, probing until it answers",
          cause.toString());
      update(cause);
    } finally {
      lock.unlock();
    }
    startTicking();
  }

  /**
   * One step: probes the store when a probe is due, checks the pause conditions when due. Calls run
   * one at a time, so a due probe is made once.
   */
  void check() {
    checking.lock();
    try {
      checkOnce();
    } finally {
      checking.unlock();
    }
  }

  private void checkOnce() {
    long now = time.nanoTime();
    boolean probe;
    lock.lock();
    try {
      probe = storeDown && now - nextProbeNanos >= 0;
    } finally {
      lock.unlock();
    }
    if (probe) {
      probe(now);
    }
    if (!conditions.isEmpty() && now - nextCheckNanos >= 0) {
      nextCheckNanos = now + CHECK_EVERY.toNanos();
      lock.lock();
      try {
        update(null);
      } finally {
        lock.unlock();
      }
    }
  }

  private void probe(long now) {
    boolean up;
    try {
      store.getResult(probeKey);
      up = true;
    } catch (RuntimeException e) {
      up = false;
      log.debug("store probe failed: {}", e.toString());
    }
    lock.lock();
    try {
      if (up) {
        storeDown = false;
        storeBack.signalAll();
        log.info("idempotency store answers again: intake resumes");
      } else {
        probeBackoffNanos = Math.min(probeBackoffNanos * 2, MAX_PROBE.toNanos());
        nextProbeNanos = now + probeBackoffNanos;
      }
      update(null);
    } finally {
      lock.unlock();
    }
  }

  /** Recomputes the reason under the lock; emits and signals on a change. */
  private void update(Throwable cause) {
    String next = storeDown ? "idempotency store unavailable" : null;
    if (next == null) {
      for (PauseCondition c : conditions) {
        if (holds(c)) {
          next = c.reason();
          break;
        }
      }
    }
    String previous = reason;
    if (java.util.Objects.equals(previous, next)) {
      return;
    }
    reason = next;
    long now = time.nanoTime();
    if (previous == null) {
      pausedAtNanos = now;
      if (events.enabled()) {
        events.emit(new SigloEvent.Paused(next, cause));
      }
      return;
    }
    if (next == null) {
      opened.signalAll();
      if (events.enabled()) {
        events.emit(new SigloEvent.Resumed(previous, Duration.ofNanos(now - pausedAtNanos)));
      }
    }
  }

  private static boolean holds(PauseCondition c) {
    try {
      return c.holds().getAsBoolean();
    } catch (RuntimeException e) {
      log.warn("pause condition '{}' failed ({}): treated as holding", c.reason(), e.toString());
      return true;
    }
  }

  /** Calls {@link #check()} every {@link #TICK} on a daemon thread until {@link #close()}. */
  void startTicking() {
    lock.lock();
    try {
      if (ticker == null && !closed) {
        ticker = Ticker.start("siglo-intake-gate", TICK, this::check);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      storeBack.signalAll(); // nobody probes any more: waiters go back to their own retries
      if (ticker != null) {
        ticker.close();
      }
    } finally {
      lock.unlock();
    }
  }
}
