package dev.siglo.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.StepDeclinedException;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.BatchClaimResult;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.testkit.ChildJvm;
import dev.siglo.testkit.PostgresServerExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransactionalStepIT {
  @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);

  static HikariDataSource ds;
  // the single table; PartitionedTransactionalStepIT runs every test again on the partitioned
  // layout
  static PostgresIdempotencyStore store;

  @BeforeAll
  static void setUp() throws Exception {
    ds = Payments.pool(PG.server().jdbcUrl());
    Payments.createTable(ds);
    store = Payments.store(ds);
  }

  @AfterAll
  static void tearDown() {
    ds.close();
  }

  private static int records(String keyFragment) throws Exception {
    return Payments.records(ds, store.config().table(), keyFragment);
  }

  private static String order(String name) {
    return name + "-" + System.nanoTime();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aProcessKilledBetweenTheWriteAndTheCommitLeavesNeitherAndTheRedeliveryRunsTheStepOnce()
      throws Exception {
    String orderId = order("crash");
    Process child =
        new ProcessBuilder(crashBeforeCommit(orderId))
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("written");
      child.destroyForcibly(); // SIGKILL between the user's write and the commit
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    assertThat(Payments.rows(ds, orderId)).as("the payment row did not survive").isZero();
    assertThat(records("payment:" + orderId)).as("nor did the step's record").isZero();

    AtomicInteger bodies = new AtomicInteger();
    MessageProcessor redelivery =
        Payments.processor(store, Payments.recordPayment(store, bodies::incrementAndGet));
    Disposition first = redelivery.process(Payments.message(orderId));
    Disposition again = redelivery.process(Payments.message(orderId));

    assertThat(first).isInstanceOf(Disposition.Ack.class);
    assertThat(((Disposition.Ack) first).reason()).isEqualTo(Disposition.AckReason.PROCESSED);
    assertThat(((Disposition.Ack) again).reason()).isEqualTo(Disposition.AckReason.DUPLICATE);
    assertThat(bodies).hasValue(1);
    assertThat(Payments.rows(ds, orderId)).isEqualTo(1);
    assertThat(records("payment:" + orderId)).isEqualTo(1);
  }

  @Test
  void whenTheRecordCannotBeWrittenTheUsersWritesRollBack() throws Exception {
    String orderId = order("unrecordable");
    TransactionalStep<String, String> step =
        TransactionalStep.of(
                store,
                "hugeResult",
                String.class,
                (Connection c, String id) -> {
                  insert(c, id);
                  return "x".repeat(100_000);
                })
            .idempotent(id -> id, dev.siglo.consumer.IdempotencyConfig.defaults());

    assertThatThrownBy(() -> runStep(step, orderId)).isInstanceOf(OutcomeTooLargeException.class);

    assertThat(Payments.rows(ds, orderId)).isZero();
    assertThat(records(orderId)).isZero();
  }

  static final class InsufficientFunds extends PermanentException {
    private static final long serialVersionUID = 1L;

    InsufficientFunds() {
      super("insufficient funds");
    }
  }

  @Test
  void aPermanentFailureRollsTheWritesBackRecordsTheDeclineAndIsNotRunAgain() throws Exception {
    String orderId = order("declined");
    AtomicInteger bodies = new AtomicInteger();
    TransactionalStep<String, Long> step =
        TransactionalStep.of(
                store,
                "declining",
                Long.class,
                (Connection c, String id) -> {
                  bodies.incrementAndGet();
                  insert(c, id);
                  throw new InsufficientFunds();
                })
            .idempotent(id -> id, dev.siglo.consumer.IdempotencyConfig.defaults());

    assertThatThrownBy(() -> runStep(step, orderId)).isInstanceOf(InsufficientFunds.class);
    assertThatThrownBy(() -> runStep(step, orderId))
        .isInstanceOf(StepDeclinedException.class)
        .hasMessageContaining(InsufficientFunds.class.getName());

    assertThat(bodies).hasValue(1);
    assertThat(Payments.rows(ds, orderId)).isZero();
    assertThat(records(orderId)).isEqualTo(1);
  }

  @Test
  void aTransientFailureLeavesNothingAndTheNextRunExecutesOnce() throws Exception {
    String orderId = order("flaky");
    AtomicInteger bodies = new AtomicInteger();
    TransactionalStep<String, Long> step =
        TransactionalStep.of(
                store,
                "flaky",
                Long.class,
                (Connection c, String id) -> {
                  insert(c, id);
                  if (bodies.incrementAndGet() == 1) {
                    throw new TransientException("downstream timed out after the write");
                  }
                  return 7L;
                })
            .idempotent(id -> id, dev.siglo.consumer.IdempotencyConfig.defaults());

    assertThatThrownBy(() -> runStep(step, orderId)).isInstanceOf(TransientException.class);
    assertThat(Payments.rows(ds, orderId)).isZero();
    assertThat(records(orderId)).isZero();

    assertThat(runStep(step, orderId)).isEqualTo(7L);
    assertThat(runStep(step, orderId)).isEqualTo(7L);
    assertThat(bodies).hasValue(2);
    assertThat(Payments.rows(ds, orderId)).isEqualTo(1);
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void aConcurrentDuplicateWaitsOnTheRowLockAndSettlesOnTheCommittedResult() throws Exception {
    String orderId = order("concurrent");
    CountDownLatch firstWrote = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    AtomicInteger bodies = new AtomicInteger();
    TransactionalStep<String, Long> step =
        Payments.recordPayment(
            store,
            () -> {
              if (bodies.incrementAndGet() == 1) {
                firstWrote.countDown();
                releaseFirst.await(30, TimeUnit.SECONDS);
              }
            });
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Long> first = pool.submit(() -> runStep(step, orderId));
      assertThat(firstWrote.await(30, TimeUnit.SECONDS)).isTrue();
      Future<Long> duplicate = pool.submit(() -> runStep(step, orderId));
      AtomicReference<Boolean> waiting = new AtomicReference<>();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .until(() -> lockWaiters() > 0);
      waiting.set(!duplicate.isDone());
      releaseFirst.countDown();

      assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1250L);
      assertThat(duplicate.get(30, TimeUnit.SECONDS)).isEqualTo(1250L);
      assertThat(waiting.get()).as("the duplicate waited on the first's row lock").isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(bodies).hasValue(1);
    assertThat(Payments.rows(ds, orderId)).isEqualTo(1);
  }

  /**
   * A claim outside a transaction (the engine's, single or batched) of a key whose step transaction
   * is open elsewhere answers in progress while that transaction is still open, and the other keys
   * of its batch are claimed: a holder that never commits (a frozen process) holds back no key but
   * its own.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aKeyWhoseTransactionIsOpenAnswersInProgressAtOnceAndHoldsBackNoOtherKeyOfItsBatch()
      throws Exception {
    String orderId = order("held");
    CountDownLatch wrote = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    TransactionalStep<String, Long> step =
        Payments.recordPayment(
            store,
            () -> {
              wrote.countDown();
              release.await(60, TimeUnit.SECONDS);
            });
    String held = IdempotencyKeys.defaults().key("payment:" + orderId);
    String free = IdempotencyKeys.defaults().key("free:" + orderId);
    Duration lease = Duration.ofMinutes(1);
    // the partitioned layout creates its partitions on its first call: DDL that needs the table's
    // lock, which an open transaction on the table holds back (README, partitioned layout)
    store.claim(new ClaimRequest(free + "-first", null, lease));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<Long> holder = pool.submit(() -> runStep(step, orderId));
      assertThat(wrote.await(30, TimeUnit.SECONDS)).isTrue();

      ClaimResult single = store.claim(new ClaimRequest(held, null, lease));
      List<BatchClaimResult> batch =
          store.claimAll(
              List.of(new ClaimRequest(free, null, lease), new ClaimRequest(held, null, lease)));

      assertThat(holder).as("answered while the holder's transaction is open").isNotDone();
      release.countDown();
      assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo(1250L);
      assertThat(single.status()).isEqualTo(ClaimStatus.IN_PROGRESS);
      assertThat(batch.get(0).result().status()).isEqualTo(ClaimStatus.CLAIMED);
      assertThat(batch.get(1).result().status()).isEqualTo(ClaimStatus.IN_PROGRESS);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * A holder whose process freezes inside its step's transaction (here: its body waits on a latch,
   * sending nothing) loses its session once that transaction sat idle for the step's lease (the
   * store's default idle-in-transaction timeout): its write and claim roll back, a duplicate claims
   * the key and runs the step, and the holder's late commit fails. It is never woken before the
   * duplicate finished. One payment row.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aFrozenHoldersTransactionEndsAfterItsLeaseAndADuplicateRunsTheStepOnce() throws Exception {
    String orderId = order("frozen");
    CountDownLatch wrote = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    AtomicInteger bodies = new AtomicInteger();
    IdempotencyConfig shortLease =
        IdempotencyConfig.custom()
            .lease(Duration.ofSeconds(2))
            .settleTimeout(Duration.ofSeconds(20))
            .build();
    TransactionalStep<String, Long> step =
        Payments.recordPayment(
                store,
                () -> {
                  if (bodies.incrementAndGet() == 1) {
                    wrote.countDown();
                    thaw.await(60, TimeUnit.SECONDS);
                  }
                })
            .idempotent(id -> "payment:" + id, shortLease);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Long> frozen = pool.submit(() -> runStep(step, orderId));
      assertThat(wrote.await(30, TimeUnit.SECONDS)).isTrue();

      Future<Long> duplicate = pool.submit(() -> runStep(step, orderId));

      assertThat(duplicate.get(60, TimeUnit.SECONDS)).isEqualTo(1250L);
      assertThat(frozen).as("the holder stayed frozen until the duplicate finished").isNotDone();
      thaw.countDown();
      assertThatThrownBy(() -> frozen.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class);
    } finally {
      thaw.countDown();
      pool.shutdownNow();
    }
    assertThat(bodies).hasValue(2);
    assertThat(Payments.rows(ds, orderId)).isEqualTo(1);
  }

  private static List<String> crashBeforeCommit(String orderId) {
    List<String> command = ChildJvm.command(CrashBeforeCommitMain.class);
    command.addAll(List.of(PG.server().jdbcUrl(), orderId));
    return command;
  }

  private static int lockWaiters() throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
        java.sql.ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aDuplicateStormThroughTheEngineWritesEachPaymentOnce() throws Exception {
    String prefix = order("storm");
    AtomicInteger bodies = new AtomicInteger();
    MessageProcessor processor =
        Payments.processor(store, Payments.recordPayment(store, bodies::incrementAndGet));
    ExecutorService pool = Executors.newFixedThreadPool(12);
    List<Future<Disposition>> results = new ArrayList<>();
    try {
      for (int m = 0; m < 60; m++) {
        for (int copy = 0; copy < 3; copy++) {
          String orderId = prefix + "-" + m;
          results.add(pool.submit(() -> processor.process(Payments.message(orderId))));
        }
      }
      for (Future<Disposition> f : results) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isInstanceOf(Disposition.Ack.class);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(bodies).hasValue(60);
    for (int m = 0; m < 60; m++) {
      assertThat(Payments.rows(ds, prefix + "-" + m)).isEqualTo(1);
    }
  }

  private static void insert(Connection c, String orderId) throws Exception {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO payments (order_id, amount) VALUES (?, 1)")) {
      ps.setString(1, orderId);
      ps.executeUpdate();
    }
  }

  /**
   * Runs the step inside a handler call (where a handler context is valid), for a message without a
   * key: the step's key is absolute. Returns its result or rethrows its failure unchanged.
   */
  private static <R> R runStep(TransactionalStep<String, R> step, String input) throws Exception {
    AtomicReference<R> result = new AtomicReference<>();
    AtomicReference<Exception> failure = new AtomicReference<>();
    MessageProcessor.of(
            dev.siglo.consumer.engine.MessageProcessorConfig.builder(
                    dev.siglo.consumer.PayloadDecoder.bytes(),
                    (byte[] payload, HandlerContext ctx) -> {
                      try {
                        result.set(ctx.run(step, input));
                      } catch (Exception e) {
                        failure.set(e);
                      }
                      return null;
                    })
                .missingKeyPolicy(
                    dev.siglo.consumer.key.MissingKeyPolicy.PROCESS_WITHOUT_IDEMPOTENCY)
                .build())
        .process(
            dev.siglo.consumer.Message.builder(
                    "direct", dev.siglo.consumer.MessageSource.of("test", "direct"))
                .build());
    if (failure.get() != null) {
      throw failure.get();
    }
    return result.get();
  }
}
