package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A suspect runs alone: it waits for the messages already running, and messages arriving while it
 * waits or runs wait behind it; ordinary messages run side by side.
 */
class IsolationTest {
  private final Isolation isolation = new Isolation();
  private final List<String> events = new CopyOnWriteArrayList<>();

  private CompletableFuture<Integer> ordinary(String name, CountDownLatch release) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return isolation.run(
                () -> {
                  events.add(name + " runs");
                  assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
                  events.add(name + " ends");
                  return 1;
                });
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void aSuspectWaitsForRunningMessagesAndNewOnesWaitBehindIt() throws Exception {
    CountDownLatch releaseA = new CountDownLatch(1);
    CompletableFuture<Integer> a = ordinary("a", releaseA);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("a runs"));

    AtomicBoolean suspected = new AtomicBoolean();
    CountDownLatch releaseS = new CountDownLatch(1);
    CompletableFuture<Integer> s =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return isolation.run(
                    () -> {
                      if (suspected.compareAndSet(false, true)) {
                        throw new Isolation.RunAlone(); // its claim was taken over
                      }
                      events.add("s runs alone");
                      assertThat(releaseS.await(10, TimeUnit.SECONDS)).isTrue();
                      events.add("s ends");
                      return 2;
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(isolation::suspectPending);
    CompletableFuture<Integer> b = ordinary("b", new CountDownLatch(0));

    releaseA.countDown();
    assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("s runs alone"));
    assertThat(events).as("b waits behind the suspect").doesNotContain("b runs");
    releaseS.countDown();

    assertThat(s.get(10, TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(events)
        .containsExactly("a runs", "a ends", "s runs alone", "s ends", "b runs", "b ends");
    assertThat(isolation.suspectPending()).isFalse();
  }

  @Test
  void ordinaryMessagesRunSideBySide() throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    AtomicInteger together = new AtomicInteger();
    List<CompletableFuture<Integer>> runs =
        List.of(1, 2).stream()
            .map(
                i ->
                    CompletableFuture.supplyAsync(
                        () -> {
                          try {
                            return isolation.run(
                                () -> {
                                  both.countDown();
                                  // each waits for the other: only side by side do both finish
                                  assertThat(both.await(10, TimeUnit.SECONDS)).isTrue();
                                  return together.incrementAndGet();
                                });
                          } catch (Exception e) {
                            throw new IllegalStateException(e);
                          }
                        }))
            .toList();
    for (CompletableFuture<Integer> r : runs) {
      r.get(20, TimeUnit.SECONDS);
    }
    assertThat(together).hasValue(2);
  }
}
