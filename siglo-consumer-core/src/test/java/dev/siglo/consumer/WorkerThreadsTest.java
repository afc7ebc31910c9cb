package dev.siglo.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.NamedThreads;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The worker thread choices: each bounds the running tasks by the concurrency; virtual threads
 * exist on JDK 21+ only (run there by the {@code virtual-threads} test execution, skipped on 17).
 */
class WorkerThreadsTest {

  /**
   * Starts {@code tasks} tasks that block until released; returns the most seen running at once.
   */
  private static int mostRunningAtOnce(ExecutorService executor, int tasks, Set<Thread> seen)
      throws InterruptedException {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    for (int i = 0; i < tasks; i++) {
      executor.execute(
          () -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            seen.add(Thread.currentThread());
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
            done.incrementAndGet();
          });
    }
    await().until(() -> running.get() == Math.min(tasks, 4));
    release.countDown();
    await().until(() -> done.get() == tasks);
    executor.shutdown();
    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    return most.get();
  }

  @Test
  void platformThreadsAreAFixedPoolOfNamedDaemonThreads() throws Exception {
    Set<Thread> seen = ConcurrentHashMap.newKeySet();
    int most = mostRunningAtOnce(WorkerThreads.platform().executor("w", 4), 50, seen);

    assertThat(most).isEqualTo(4);
    assertThat(seen)
        .hasSize(4)
        .allMatch(Thread::isDaemon)
        .allMatch(t -> t.getName().startsWith("w-"));
  }

  @Test
  void perTaskThreadsAreNewForEachTaskAndAdmittedByTheConcurrencyPermits() throws Exception {
    Set<Thread> seen = ConcurrentHashMap.newKeySet();
    ExecutorService executor =
        WorkerThreads.perTask("mine", NamedThreads.daemon("mine", true)).executor("w", 4);

    int most = mostRunningAtOnce(executor, 50, seen);

    assertThat(most).as("permits bound the running tasks").isEqualTo(4);
    assertThat(seen).as("one thread per task").hasSize(50);
    assertThatThrownBy(() -> executor.execute(() -> {}))
        .isInstanceOf(RejectedExecutionException.class);
  }

  @Test
  void shutdownNowInterruptsRunningAndWaitingTasks() throws Exception {
    ExecutorService executor =
        WorkerThreads.perTask("mine", NamedThreads.daemon("mine", true)).executor("w", 1);
    AtomicInteger interrupted = new AtomicInteger();
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch started = new CountDownLatch(1);
    for (int i = 0; i < 3; i++) {
      executor.execute(
          () -> {
            ran.incrementAndGet();
            started.countDown();
            try {
              new CountDownLatch(1).await();
            } catch (InterruptedException e) {
              interrupted.incrementAndGet();
            }
          });
    }
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

    executor.shutdownNow();

    assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).as("the two waiting for a permit are dropped").hasValue(1);
    assertThat(interrupted).hasValue(1);
  }

  @Test
  void virtualThreadsAreRefusedWithTheJvmVersionBeforeJdk21() {
    assumeFalse(WorkerThreads.virtualThreadsAvailable(), "this JVM has virtual threads");

    assertThatThrownBy(WorkerThreads::virtualThreads)
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("need JDK 21 or later")
        .hasMessageContaining(Runtime.version().toString());
  }

  @Test
  @Tag("virtual-threads")
  void virtualThreadsAreOnePerTaskAndBoundedByThePermits() throws Exception {
    assumeTrue(
        WorkerThreads.virtualThreadsAvailable(),
        "virtual threads need JDK 21+; this JVM is "
            + Runtime.version()
            + " (set SIGLO_JDK21_HOME to run this test on one)");
    Set<Thread> seen = ConcurrentHashMap.newKeySet();

    int most = mostRunningAtOnce(WorkerThreads.virtualThreads().executor("v", 4), 50, seen);

    assertThat(most).isEqualTo(4);
    assertThat(seen).hasSize(50).allMatch(t -> t.getName().startsWith("v-"));
    assertThat(seen).allMatch(WorkerThreadsTest::isVirtual);
  }

  private static boolean isVirtual(Thread t) {
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
