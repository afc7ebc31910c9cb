package dev.siglo.consumer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GroupCommitTest {
  private final List<List<String>> batches = new CopyOnWriteArrayList<>();
  private final CountDownLatch releaseFirst = new CountDownLatch(1);
  private final ExecutorService callers = Executors.newCachedThreadPool();
  private final List<Thread> callerThreads = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    releaseFirst.countDown();
    callers.shutdownNow();
  }

  /** Upper-cases each request; the first batch waits for the test to release it. */
  private List<String> upperCase(List<String> requests) {
    batches.add(List.copyOf(requests));
    if (batches.size() == 1) {
      try {
        releaseFirst.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (requests.contains("boom")) {
      throw new IllegalStateException("store down");
    }
    List<String> out = new ArrayList<>();
    requests.forEach(r -> out.add(r.toUpperCase(Locale.ROOT)));
    return out;
  }

  private GroupCommit<String, String> commit(Function<String, Object> identity) {
    return new GroupCommit<>(this::upperCase, identity, 100, Duration.ofSeconds(30));
  }

  private Future<String> submitAsync(GroupCommit<String, String> gc, String request) {
    return callers.submit(
        () -> {
          callerThreads.add(Thread.currentThread());
          return gc.submit(request);
        });
  }

  /** Waits until {@code n} callers are parked behind the batch under way. */
  private void awaitWaiting(int n) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                callerThreads.size() == n + 1
                    && callerThreads.stream()
                            .filter(t -> t.getState() == Thread.State.TIMED_WAITING)
                            .count()
                        >= n);
  }

  @Test
  void aLoneCallerIsSentAtOnceInABatchOfItsOwn() {
    releaseFirst.countDown();
    GroupCommit<String, String> gc = commit(r -> r);
    assertThat(gc.submit("a")).isEqualTo("A");
    assertThat(batches).containsExactly(List.of("a"));
  }

  @Test
  void callersArrivingWhileABatchIsUnderWayGoTogetherInTheNextAndEachGetsItsOwnAnswer()
      throws Exception {
    GroupCommit<String, String> gc = commit(r -> r);
    Future<String> first = submitAsync(gc, "first");
    await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() == 1);
    List<Future<String>> later = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      later.add(submitAsync(gc, "r" + i));
    }
    awaitWaiting(10);
    releaseFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("FIRST");
    for (int i = 0; i < 10; i++) {
      assertThat(later.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("R" + i);
    }
    assertThat(batches).hasSize(2);
    assertThat(batches.get(1)).hasSize(10);
  }

  @Test
  void requestsWithTheSameIdentityNeverShareABatch() throws Exception {
    GroupCommit<String, String> gc = commit(r -> r.substring(0, 2));
    Future<String> first = submitAsync(gc, "k0-first");
    await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() == 1);
    List<Future<String>> later = new ArrayList<>();
    for (String r : List.of("k1-a", "k1-b", "k2-a", "k1-c")) {
      later.add(submitAsync(gc, r));
    }
    awaitWaiting(4);
    releaseFirst.countDown();
    first.get(10, TimeUnit.SECONDS);
    for (Future<String> f : later) {
      f.get(10, TimeUnit.SECONDS);
    }
    for (List<String> batch : batches) {
      assertThat(new HashSet<>(batch.stream().map(r -> r.substring(0, 2)).toList()))
          .as("identities in %s", batch)
          .hasSize(batch.size());
    }
    assertThat(batches.stream().mapToInt(List::size).sum()).isEqualTo(5);
  }

  @Test
  void aFailedBatchCallFailsEveryCallerOfThatBatchAndNoOther() throws Exception {
    GroupCommit<String, String> gc = commit(r -> r);
    Future<String> first = submitAsync(gc, "first");
    await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() == 1);
    Future<String> boom = submitAsync(gc, "boom");
    Future<String> neighbour = submitAsync(gc, "neighbour");
    awaitWaiting(2);
    releaseFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("FIRST");
    assertThatThrownBy(() -> boom.get(10, TimeUnit.SECONDS))
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> neighbour.get(10, TimeUnit.SECONDS))
        .as("it shared the failed batch")
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(gc.submit("after")).isEqualTo("AFTER");
  }

  @Test
  void aBatchCallAnsweringTheWrongNumberOfRequestsFailsItsCallers() {
    GroupCommit<String, String> gc =
        new GroupCommit<>(requests -> List.of(), r -> r, 10, Duration.ofSeconds(30));
    assertThatThrownBy(() -> gc.submit("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 got 0 answers");
  }

  @Test
  void aCallerInterruptedWhileAnotherBatchIsUnderWayGivesUpTransientlyAndKeepsItsInterrupt()
      throws Exception {
    GroupCommit<String, String> gc = commit(r -> r);
    Future<String> first = submitAsync(gc, "first");
    await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() == 1);
    Future<Boolean> interrupted =
        callers.submit(
            () -> {
              callerThreads.add(Thread.currentThread());
              assertThatThrownBy(() -> gc.submit("waiting"))
                  .isInstanceOf(IdempotencyStoreUnavailableException.class)
                  .hasMessageContaining("interrupted");
              return Thread.currentThread().isInterrupted();
            });
    awaitWaiting(1);
    callerThreads.get(1).interrupt();

    assertThat(interrupted.get(10, TimeUnit.SECONDS)).as("interrupt flag restored").isTrue();
    releaseFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("FIRST");
    assertThat(batches).as("the abandoned request is never sent").containsExactly(List.of("first"));
  }

  @Test
  void aCallerWaitsForAnotherBatchNoLongerThanMaxWait() throws Exception {
    GroupCommit<String, String> gc =
        new GroupCommit<>(this::upperCase, r -> r, 100, Duration.ofMillis(50));
    Future<String> first = submitAsync(gc, "first");
    await().atMost(Duration.ofSeconds(10)).until(() -> batches.size() == 1);

    assertThatThrownBy(() -> gc.submit("late"))
        .isInstanceOf(IdempotencyStoreUnavailableException.class)
        .hasMessageContaining("PT0.05S");
    releaseFirst.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("FIRST");
    assertThat(batches).containsExactly(List.of("first"));
  }
}
