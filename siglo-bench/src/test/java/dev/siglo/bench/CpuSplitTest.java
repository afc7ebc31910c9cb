package dev.siglo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class CpuSplitTest {
  private static final long SPIN_NANOS = 50_000_000L;

  @Test
  void rolesFollowTheThreadNames() {
    assertThat(CpuSplit.role("main")).isEqualTo(CpuSplit.MAIN);
    assertThat(CpuSplit.role("siglo-kafka-poll-orders")).isEqualTo(CpuSplit.POLL);
    assertThat(CpuSplit.role("siglo-sqs-poller-q-1")).isEqualTo(CpuSplit.POLL);
    assertThat(CpuSplit.role("plain-poller-2")).isEqualTo(CpuSplit.POLL);
    assertThat(CpuSplit.role("siglo-kafka-worker-orders-3")).isEqualTo(CpuSplit.WORKERS);
    assertThat(CpuSplit.role("siglo-lease-keeper")).isEqualTo(CpuSplit.OTHER_SIGLO);
    assertThat(CpuSplit.role("kafka-coordinator-heartbeat-thread | g")).isEqualTo(CpuSplit.CLIENTS);
    assertThat(CpuSplit.jvmRole("GC Thread#1")).isEqualTo(CpuSplit.GC);
    assertThat(CpuSplit.jvmRole("G1 Conc#0")).isEqualTo(CpuSplit.GC);
    assertThat(CpuSplit.jvmRole("C2 CompilerThre")).isEqualTo(CpuSplit.JIT);
    assertThat(CpuSplit.jvmRole("siglo-sqs-worke")).isNull();
  }

  @Test
  void aWorkersCpuTimeBetweenTwoSnapshotsIsCountedAsWorkers() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Thread worker =
        new Thread(
            () -> {
              started.countDown();
              await(go);
              var threads = ManagementFactory.getThreadMXBean();
              long until = threads.getCurrentThreadCpuTime() + SPIN_NANOS;
              while (threads.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
              }
              spun.countDown();
              await(finish); // alive at the second snapshot
            },
            "siglo-kafka-worker-test-1");
    worker.start();
    started.await();
    CpuSplit before = CpuSplit.take();
    go.countDown();
    spun.await();
    CpuSplit after = CpuSplit.take();
    finish.countDown();
    worker.join();

    Map<String, Double> split = before.perMessageUntil(after, 1);
    assertThat(split.get(CpuSplit.WORKERS)).isGreaterThanOrEqualTo(SPIN_NANOS / 1e3);
    double sum = split.values().stream().mapToDouble(Double::doubleValue).sum();
    assertThat(sum)
        .isCloseTo(before.processNanosUntil(after) / 1e3, org.assertj.core.data.Offset.offset(1.0));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
