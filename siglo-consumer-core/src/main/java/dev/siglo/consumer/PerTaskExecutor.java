package dev.siglo.consumer;

import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A new thread per task, each admitted by one of {@code concurrency} permits before it runs its
 * task. {@link #shutdown()} lets started tasks (those admitted and those still waiting for a
 * permit) run; {@link #shutdownNow()} interrupts them all, and a task not admitted yet is dropped.
 */
final class PerTaskExecutor extends AbstractExecutorService {
  private final ThreadFactory factory;
  private final Semaphore permits;
  private final Set<Thread> live = ConcurrentHashMap.newKeySet();
  private final Object lock = new Object();
  private volatile boolean shutdown;
  private volatile boolean stopNow;

  PerTaskExecutor(ThreadFactory factory, int concurrency) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    this.factory = factory;
    this.permits = new Semaphore(concurrency);
  }

  @Override
  public void execute(Runnable task) {
    synchronized (lock) {
      if (shutdown) {
        throw new RejectedExecutionException("executor is shut down");
      }
      Thread[] self = new Thread[1];
      Thread t = factory.newThread(() -> run(task, self[0]));
      if (t == null) {
        throw new RejectedExecutionException("the thread factory made no thread");
      }
      self[0] = t;
      live.add(t);
      t.start();
    }
  }

  private void run(Runnable task, Thread self) {
    try {
      permits.acquire();
      try {
        if (!stopNow) {
          task.run();
        }
      } finally {
        permits.release();
      }
    } catch (InterruptedException e) {
      // shut down before it was admitted: dropped
    } finally {
      synchronized (lock) {
        live.remove(self);
        lock.notifyAll();
      }
    }
  }

  @Override
  public void shutdown() {
    synchronized (lock) {
      shutdown = true;
      lock.notifyAll();
    }
  }

  @Override
  public List<Runnable> shutdownNow() {
    stopNow = true;
    shutdown();
    live.forEach(Thread::interrupt);
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && live.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (lock) {
      while (!isTerminated()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }
}
