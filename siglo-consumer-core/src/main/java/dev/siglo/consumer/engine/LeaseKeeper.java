package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.SigloException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.store.BatchRenewResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.RenewRequest;
import dev.siglo.consumer.support.Ticker;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every live claim of a running handler or step held: a claim is renewed for another lease
 * once {@link #RENEW_FRACTION} of its lease has passed since it was claimed or last renewed, all
 * due claims in one {@link IdempotencyStore#renewAll} call, so only a holder whose process died or
 * froze past its lease is ever taken over. A renewal that finds the claim taken over marks it
 * {@linkplain Held#lost() lost} and emits {@link SigloEvent.LeaseLost}; a renewal that fails on the
 * store is tried again after {@link #RETRY_AFTER_FAILURE} (the claim keeps its last lease end). A
 * store found unavailable is reported to the {@link StoreOutage}; while that outage lasts no
 * renewal is sent (the outage's prober speaks for them), and due claims are renewed at the first
 * tick after the store is back.
 *
 * <p>{@link #renewDue()} decides on the injected {@link Time}; a {@link Ticker} calls it every
 * {@link #TICK} on a named daemon thread, started with the first held claim. Thread-safe.
 *
 * <p>A claim is held in a slot of its thread's own small array (the message claim and the step
 * claims nested in it), which the renewing thread scans: holding and releasing a claim is a
 * volatile write, with no shared map to update per message. A thread holding more than {@link
 * #SLOTS} claims at once (a batch handler's) puts the rest in a shared set. Threads register their
 * slots once, in a lock-free queue (a thread per message, as with virtual threads, registers one
 * per message: a constant-time add), and the scan drops the slots of threads that ended.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  /** The part of a lease after which a claim is renewed: a third, leaving two thirds of slack. */
  static final double RENEW_FRACTION = 1.0 / 3;

  /** How often the ticking thread looks for due claims. */
  static final Duration TICK = Duration.ofMillis(50);

  /**
   * How long a renewal that failed on the store waits before it is tried again, at most (a tenth of
   * the claim's lease when that is shorter): an outage is not hammered 20 times a second.
   */
  static final Duration RETRY_AFTER_FAILURE = Duration.ofSeconds(1);

  /** Claims a thread holds in its own slots at once; more go to the shared set. */
  static final int SLOTS = 8;

  /** The slots of one thread: written by that thread, read by the renewing one. */
  private static final class Slots {
    final Thread owner = Thread.currentThread();
    final AtomicReferenceArray<Held> held = new AtomicReferenceArray<>(SLOTS);
  }

  /** One held claim. */
  static final class Held {
    final Message message;
    final String key;
    final ClaimToken token;
    final Duration lease;
    private final long renewEveryNanos;
    private final long retryNanos;
    private volatile long dueNanos;
    private volatile boolean lost;
    private Slots slots;
    private int slot;

    private Held(Message message, String key, ClaimToken token, Duration lease, long nowNanos) {
      this.message = message;
      this.key = key;
      this.token = token;
      this.lease = lease;
      this.renewEveryNanos = Math.max(1, (long) (lease.toNanos() * RENEW_FRACTION));
      this.retryNanos = Math.max(1, Math.min(RETRY_AFTER_FAILURE.toNanos(), lease.toNanos() / 10));
      this.dueNanos = nowNanos + renewEveryNanos;
    }

    /**
     * @return whether a renewal found the claim taken over by another holder
     */
    boolean lost() {
      return lost;
    }
  }

  private final IdempotencyStore store;
  private final Time time;
  private final EventSink events;
  private final StoreOutage outage;
  private final Set<Held> overflow = ConcurrentHashMap.newKeySet();
  private final Queue<Slots> threads = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Slots> mine =
      ThreadLocal.withInitial(
          () -> {
            Slots s = new Slots();
            threads.add(s);
            return s;
          });
  private final ReentrantLock renewing = new ReentrantLock();
  private volatile Ticker ticker;
  private boolean closed;

  LeaseKeeper(IdempotencyStore store, Time time, EventSink events, StoreOutage outage) {
    this.store = store;
    this.time = time;
    this.events = events;
    this.outage = outage;
  }

  /** Starts renewing a claim until {@link #release}. */
  Held hold(Message message, String key, ClaimToken token, Duration lease) {
    Held h = new Held(message, key, token, lease, time.nanoTime());
    Slots s = mine.get();
    for (int i = 0; i < SLOTS && h.slots == null; i++) {
      if (s.held.get(i) == null) {
        h.slots = s;
        h.slot = i;
        s.held.set(i, h);
      }
    }
    if (h.slots == null) {
      overflow.add(h);
    }
    if (ticker == null) { // started once: no lock on the claim path afterwards
      ensureTicking();
    }
    return h;
  }

  /** Stops renewing a claim (it was completed, released or abandoned). */
  void release(Held h) {
    if (h.slots != null) {
      h.slots.held.compareAndSet(h.slot, h, null);
    } else {
      overflow.remove(h);
    }
  }

  /** Every claim held now, from every thread's slots and the shared set. */
  private List<Held> all() {
    List<Held> out = new ArrayList<>(overflow);
    for (Iterator<Slots> it = threads.iterator(); it.hasNext(); ) {
      Slots s = it.next();
      boolean any = false;
      for (int i = 0; i < SLOTS; i++) {
        Held h = s.held.get(i);
        if (h != null) {
          out.add(h);
          any = true;
        }
      }
      if (!any && !s.owner.isAlive()) {
        it.remove(); // its thread ended holding nothing: forget its slots
      }
    }
    return out;
  }

  /**
   * @return the threads whose slots are registered (tests: the slots of ended threads are dropped)
   */
  int registeredThreads() {
    return threads.size();
  }

  /**
   * @return the claims held now
   */
  int held() {
    return all().size();
  }

  /** Renews every claim whose renewal is due, in one batch call; calls run one at a time. */
  void renewDue() {
    renewing.lock();
    try {
      renewDueNow();
    } finally {
      renewing.unlock();
    }
  }

  private void renewDueNow() {
    if (outage.storeDown()) {
      return; // no renewal can land now; due claims go out once a probe finds the store
    }
    long now = time.nanoTime();
    List<Held> due = new ArrayList<>();
    for (Held h : all()) {
      if (!h.lost && now - h.dueNanos >= 0) {
        due.add(h);
      }
    }
    if (due.isEmpty()) {
      return;
    }
    List<RenewRequest> requests = new ArrayList<>(due.size());
    for (Held h : due) {
      requests.add(new RenewRequest(h.key, h.token, h.lease));
    }
    List<BatchRenewResult> answers;
    try {
      answers = store.renewAll(requests);
    } catch (RuntimeException e) {
      log.warn("renewing {} claim lease(s) failed ({}); retrying", due.size(), e.toString());
      reportIfUnavailable(e);
      for (Held h : due) {
        h.dueNanos = now + h.retryNanos;
      }
      return;
    }
    for (int i = 0; i < due.size(); i++) {
      Held h = due.get(i);
      RuntimeException failure = answers.get(i).failure();
      if (failure == null) {
        h.dueNanos = now + h.renewEveryNanos;
      } else if (failure instanceof IdempotencyLeaseLostException) {
        leaseLost(h);
      } else {
        log.warn("renewing the lease of key '{}' failed: {}", h.key, failure.toString());
        reportIfUnavailable(failure);
        h.dueNanos = now + h.retryNanos;
      }
    }
  }

  private void reportIfUnavailable(RuntimeException failure) {
    IdempotencyStoreUnavailableException down =
        SigloException.findCause(failure, IdempotencyStoreUnavailableException.class);
    if (down != null) {
      outage.storeUnavailable(down);
    }
  }

  private void leaseLost(Held h) {
    h.lost = true;
    log.warn(
        "{} key '{}': its claim was taken over by another holder while it ran (this process was"
            + " frozen or cut off from the store past its lease of {}); its outcome will not be"
            + " recorded",
        h.message,
        h.key,
        h.lease);
    if (events.enabled()) {
      events.emit(new SigloEvent.LeaseLost(h.message, h.key, h.lease));
    }
  }

  private synchronized void ensureTicking() {
    if (ticker == null && !closed) {
      ticker = Ticker.start("siglo-lease-keeper", TICK, this::renewDue);
    }
  }

  /** Stops the ticking thread; held claims are no longer renewed. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    if (ticker != null) {
      ticker.close();
    }
  }
}
