package dev.siglo.consumer.support;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread factories for Siglo's executors: every thread named, daemon, numbered. */
public final class NamedThreads {
  private NamedThreads() {}

  /**
   * @param name the thread name; {@code -1}, {@code -2}, ... is appended when {@code numbered}
   * @param numbered whether to number the threads
   * @return a factory of daemon threads with that name
   */
  public static ThreadFactory daemon(String name, boolean numbered) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, numbered ? name + "-" + n.incrementAndGet() : name);
      t.setDaemon(true);
      return t;
    };
  }
}
