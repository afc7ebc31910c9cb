package dev.siglo.testkit;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Step;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A side effect that takes longer than its claim lease, for the runtimes' fault tests: each call
 * counts one effect, tells {@link #awaitStarted} it began, then works {@link #WORK} (3.5 leases of
 * {@link #LEASE}). The claim must be renewed while it works, or a copy of its key takes it over and
 * the effect runs twice. Thread-safe.
 */
public final class SlowWork {
  /**
   * The claim lease the tests run with: 4 s, so that a renewal due every third of it still lands
   * when a loaded 2-core machine delays the renewing thread by a second or more (with 2 s, a CI run
   * at load 9 lost the lease of a living handler).
   */
  public static final Duration LEASE = Duration.ofSeconds(4);

  /** How long one call works: three and a half leases. */
  public static final Duration WORK = LEASE.multipliedBy(7).dividedBy(2);

  private final AtomicInteger effects = new AtomicInteger();
  private final CountDownLatch started = new CountDownLatch(1);

  /**
   * @return idempotency options with the short {@link #LEASE}
   */
  public static IdempotencyConfig shortLease() {
    return IdempotencyConfig.custom().lease(LEASE).build();
  }

  /**
   * Does the slow work once.
   *
   * @param input echoed in the result
   * @return {@code "done:" + input}
   * @throws InterruptedException when interrupted while working
   */
  public String run(String input) throws InterruptedException {
    effects.incrementAndGet();
    started.countDown();
    Thread.sleep(WORK.toMillis()); // the slow side effect under test
    return "done:" + input;
  }

  /**
   * @return a step doing this work under the absolute key {@code charge:<input>} with the short
   *     lease, so two messages with the same input share one step claim
   */
  public Step<String, String> sharedStep() {
    return Step.of("charge", String.class, this::run)
        .idempotent(input -> "charge:" + input, shortLease())
        .absoluteKey();
  }

  /**
   * Waits until a call began.
   *
   * @return whether one began within 60 s
   * @throws InterruptedException when interrupted while waiting
   */
  public boolean awaitStarted() throws InterruptedException {
    return started.await(60, TimeUnit.SECONDS);
  }

  /**
   * Lets two leases pass: long enough that an unrenewed claim would have been taken over.
   *
   * @throws InterruptedException when interrupted
   */
  public static void letTwoLeasesPass() throws InterruptedException {
    Thread.sleep(LEASE.multipliedBy(2).toMillis()); // the fault's length, not a synchronisation
  }

  /**
   * @return how many times the work ran
   */
  public int effects() {
    return effects.get();
  }
}
