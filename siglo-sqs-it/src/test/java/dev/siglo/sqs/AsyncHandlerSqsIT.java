package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.testkit.SqsServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link AsyncMessageHandler}s (and virtual worker threads) on ElasticMQ with the AWS SDK client:
 * one effect per key under concurrent duplicates, a FIFO group in order whatever order stages
 * complete in, and no delete of a message whose stage is incomplete.
 */
class AsyncHandlerSqsIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();
  private static SqsTestSupport sqs;
  private static final ScheduledExecutorService completer = Executors.newScheduledThreadPool(4);

  @BeforeAll
  static void connect() {
    sqs = new SqsTestSupport(SQS.server());
  }

  @AfterAll
  static void disconnect() {
    sqs.sqs.close();
    completer.shutdownNow();
  }

  private static SigloSqsConsumer.Builder<String> consumer(
      String url, AsyncMessageHandler<String> handler) {
    return SigloSqsConsumer.asyncBuilder(PayloadDecoder.utf8(), handler)
        .client(sqs.sqs)
        .queueUrl(url);
  }

  private static void awaitEmpty(String url) {
    await().atMost(Duration.ofSeconds(120)).until(() -> sqs.remaining(url) == 0);
  }

  private static CompletableFuture<Object> after(long millis, Runnable effect) {
    CompletableFuture<Object> stage = new CompletableFuture<>();
    completer.schedule(
        () -> {
          effect.run();
          stage.complete(null);
        },
        millis,
        TimeUnit.MILLISECONDS);
    return stage;
  }

  private void eachKeyOnceUnderConcurrentDuplicates(
      WorkerThreads threads, int concurrency, int maxInFlight) {
    String url = sqs.queue(SigloSqsConsumerIT.unique("async-dups"), Map.of());
    int keys = 300;
    List<String[]> messages = new ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        messages.add(new String[] {"order-" + k, "{}"});
      }
    }
    sqs.sendAll(url, messages);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                (body, ctx) -> {
                  String key = ctx.message().header("idempotency-key").orElseThrow();
                  return after(
                      ThreadLocalRandom.current().nextInt(1, 6),
                      () ->
                          effects.computeIfAbsent(key, x -> new AtomicInteger()).incrementAndGet());
                })
            .workerThreads(threads)
            .threads(2, concurrency, maxInFlight)
            .build()) {
      c.start();
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
  }

  @Test
  void eachKeyRunsOnceUnderConcurrentDuplicatesOnPlatformThreads() {
    eachKeyOnceUnderConcurrentDuplicates(WorkerThreads.platform(), 16, 64);
  }

  @Test
  @Tag("virtual-threads")
  void eachKeyRunsOnceUnderConcurrentDuplicatesOnVirtualThreads() {
    assumeTrue(
        WorkerThreads.virtualThreadsAvailable(),
        "virtual threads need JDK 21+; this JVM is " + Runtime.version());
    eachKeyOnceUnderConcurrentDuplicates(WorkerThreads.virtualThreads(), 1_000, 1_000);
  }

  @Test
  void aFifoGroupKeepsItsOrderWhenStagesCompleteOutOfOrderAndTheHeldMessageIsNotDeleted() {
    String url =
        sqs.queue(
            SigloSqsConsumerIT.unique("async-order") + ".fifo",
            Map.of(QueueAttributeName.FIFO_QUEUE, "true"));
    for (int seq = 0; seq < 5; seq++) {
      sqs.sendFifo(url, "slow", "slow-" + seq, "slow:" + seq);
    }
    for (int seq = 0; seq < 10; seq++) {
      sqs.sendFifo(url, "fast", "fast-" + seq, "fast:" + seq);
    }
    CompletableFuture<Object> firstSlow = new CompletableFuture<>();
    Map<String, List<Integer>> started = new ConcurrentHashMap<>();
    Map<String, List<Integer>> finished = new ConcurrentHashMap<>();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                (body, ctx) -> {
                  String group = body.substring(0, 4);
                  int seq = Integer.parseInt(body.substring(5));
                  started.computeIfAbsent(group, k -> new CopyOnWriteArrayList<>()).add(seq);
                  Runnable done =
                      () ->
                          finished
                              .computeIfAbsent(group, k -> new CopyOnWriteArrayList<>())
                              .add(seq);
                  if (body.equals("slow:0")) {
                    return firstSlow.thenRun(done); // completes when the test says so
                  }
                  return after(10 - seq, done); // later messages would complete sooner
                })
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  sqs.remaining(url) == 5 && finished.getOrDefault("fast", List.of()).size() == 10);

      assertThat(started.get("slow"))
          .as("the group's next message waits for the held stage")
          .containsExactly(0);
      assertThat(sqs.remaining(url)).as("the held message is not deleted").isEqualTo(5);

      firstSlow.complete("late");
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(finished.get("slow")).containsExactly(0, 1, 2, 3, 4);
    assertThat(finished.get("fast"))
        .containsExactlyElementsOf(IntStream.range(0, 10).boxed().toList());
  }
}
