package dev.siglo.consumer;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.NamedThreads;
import java.lang.reflect.InvocationTargetException;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The threads a consumer runs its handlers on. Whatever the choice, at most {@code concurrency}
 * handlers run at once; what changes is what a running handler costs.
 *
 * <ul>
 *   <li>{@link #platform()} (the default): a fixed pool of {@code concurrency} named daemon
 *       platform threads, created as needed and kept.
 *   <li>{@link #virtualThreads()} (JDK 21+): a new virtual thread for each task, admitted by one of
 *       {@code concurrency} permits, so a concurrency of ten thousand handlers blocked on I/O costs
 *       ten thousand small stacks, not ten thousand platform threads.
 *   <li>{@link #perTask(String, ThreadFactory)}: a new thread from your factory for each task,
 *       admitted by a permit likewise (a factory that propagates a context, say).
 * </ul>
 *
 * <p>Virtual threads are created through {@code Thread.ofVirtual()} by reflection, so Siglo keeps
 * running on JDK 17: there {@link #virtualThreadsAvailable()} is false and {@link
 * #virtualThreads()} throws. On JDK 21 to 23 a virtual thread that blocks inside a {@code
 * synchronized} block pins its carrier thread (fixed in JDK 24), which can limit throughput with
 * clients that block under a monitor.
 *
 * <p>Immutable and thread-safe; each {@link #executor} call returns a new executor.
 */
public abstract class WorkerThreads {
  private static final WorkerThreads PLATFORM =
      new WorkerThreads("platform") {
        @Override
        public ExecutorService executor(String name, int concurrency) {
          return Executors.newFixedThreadPool(concurrency, NamedThreads.daemon(name, true));
        }
      };

  private final String description;

  private WorkerThreads(String description) {
    this.description = description;
  }

  /**
   * @return a fixed pool of {@code concurrency} named daemon platform threads (the default)
   */
  public static WorkerThreads platform() {
    return PLATFORM;
  }

  /**
   * @return whether this JVM has virtual threads (JDK 21 or later)
   */
  public static boolean virtualThreadsAvailable() {
    return Runtime.version().feature() >= 21;
  }

  /**
   * A new virtual thread per task, named {@code <name>-N}, at most {@code concurrency} running.
   *
   * @return the choice
   * @throws SigloConfigurationException on a JVM older than JDK 21
   */
  public static WorkerThreads virtualThreads() {
    if (!virtualThreadsAvailable()) {
      throw new SigloConfigurationException(
          "virtual worker threads need JDK 21 or later; this JVM is "
              + Runtime.version()
              + " (choose platform threads)");
    }
    return new WorkerThreads("virtual") {
      @Override
      public ExecutorService executor(String name, int concurrency) {
        return new PerTaskExecutor(virtualFactory(name), concurrency);
      }
    };
  }

  /**
   * A new thread from {@code factory} per task, at most {@code concurrency} running.
   *
   * @param description what {@link #toString()} says (for the startup summary)
   * @param factory makes one thread per task; the runtime never reuses them
   * @return the choice
   */
  public static WorkerThreads perTask(String description, ThreadFactory factory) {
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(factory, "factory");
    return new WorkerThreads(description) {
      @Override
      public ExecutorService executor(String name, int concurrency) {
        return new PerTaskExecutor(factory, concurrency);
      }
    };
  }

  /**
   * Creates the executor a runtime's workers run on; the runtime shuts it down when it stops.
   *
   * @param name the threads' name prefix
   * @param concurrency the most tasks running at once, at least 1
   * @return a new executor
   */
  public abstract ExecutorService executor(String name, int concurrency);

  /**
   * @return {@code platform}, {@code virtual} or the description given to {@link #perTask}
   */
  @Override
  public String toString() {
    return description;
  }

  private static ThreadFactory virtualFactory(String name) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Class<?> type = Class.forName("java.lang.Thread$Builder");
      builder = type.getMethod("name", String.class, long.class).invoke(builder, name + "-", 1L);
      return (ThreadFactory) type.getMethod("factory").invoke(builder);
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
      throw new SigloConfigurationException(
          "virtual worker threads could not be created on " + Runtime.version() + ": " + cause,
          cause);
    }
  }
}
