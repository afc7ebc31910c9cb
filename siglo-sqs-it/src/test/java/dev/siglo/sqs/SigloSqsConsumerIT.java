package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.testkit.SqsServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

class SigloSqsConsumerIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();
  private static SqsTestSupport sqs;

  @BeforeAll
  static void connect() {
    sqs = new SqsTestSupport(SQS.server());
  }

  @AfterAll
  static void disconnect() {
    sqs.sqs.close();
  }

  static String unique(String name) {
    return name + "-" + System.nanoTime();
  }

  static SigloSqsConsumer.Builder<String> consumer(String url, MessageHandler<String> handler) {
    return SigloSqsConsumer.builder(PayloadDecoder.utf8(), handler)
        .client(sqs.sqs)
        .queueUrl(url)
        .waitTime(Duration.ofSeconds(1))
        .deleteInterval(Duration.ofMillis(50));
  }

  static void awaitEmpty(String url) {
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .until(() -> sqs.remaining(url) == 0);
  }

  static MessageHandler<String> counting(Map<String, AtomicInteger> effects) {
    return (body, ctx) -> {
      effects
          .computeIfAbsent(
              ctx.message().header("idempotency-key").orElseThrow(), k -> new AtomicInteger())
          .incrementAndGet();
      return null;
    };
  }

  @Test
  void fiveThousandMessagesWithEachKeySentThreeTimesRunEachSideEffectOnceAndTheQueueEndsEmpty() {
    String url = sqs.queue(unique("orders"), Map.of());
    int keys = 1_667;
    List<String[]> messages = new ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        messages.add(new String[] {"order-" + k, "{\"order\":" + k + "}"});
      }
    }
    sqs.sendAll(url, messages);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    try (SigloSqsConsumer<String> c = consumer(url, counting(effects)).threads(2, 16, 64).build()) {
      c.start();
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  static final class CardDeclined extends PermanentException {
    private static final long serialVersionUID = 1L;

    CardDeclined() {
      super("card declined");
    }
  }

  @Test
  void transientPermanentAndExhaustedMessagesEndRetriedDeclinedOrInTheDeadLetterQueues() {
    String redriveDlq = sqs.queue(unique("redrive-dlq"), Map.of());
    String redriven =
        sqs.queue(
            unique("redriven"),
            Map.of(
                QueueAttributeName.REDRIVE_POLICY,
                "{\"deadLetterTargetArn\":\""
                    + sqs.arn(redriveDlq)
                    + "\",\"maxReceiveCount\":\"3\"}",
                QueueAttributeName.VISIBILITY_TIMEOUT,
                "30"));
    String ownDlq = sqs.queue(unique("own-dlq"), Map.of());
    String direct =
        sqs.queue(unique("direct"), Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    MessageHandler<String> handler =
        (body, ctx) -> {
          int n = calls.computeIfAbsent(body, k -> new AtomicInteger()).incrementAndGet();
          switch (body) {
            case "flaky" -> {
              if (n == 1) {
                throw new TransientException("gateway timed out");
              }
            }
            case "down" -> throw new java.io.IOException("connection reset");
            case "decline" -> throw new CardDeclined();
            default -> {}
          }
          return body;
        };
    RetryConfig fast =
        RetryConfig.custom()
            .maxAttempts(1)
            .maxDeliveries(10)
            .redeliveryBackoff(Duration.ofMillis(100), Duration.ofMillis(100))
            .jitter(0)
            .build();
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    sqs.send(redriven, "r-down", "down");
    sqs.send(direct, "d-flaky", "flaky");
    sqs.send(direct, "d-down", "down");
    sqs.send(direct, "d-decline", "decline");
    try (SigloSqsConsumer<String> viaRedrive =
            consumer(redriven, handler).store(store).retry(fast).build();
        SigloSqsConsumer<String> viaSiglo =
            consumer(direct, handler)
                .store(store)
                .retry(
                    RetryConfig.custom()
                        .maxAttempts(1)
                        .maxDeliveries(3)
                        .redeliveryBackoff(Duration.ofMillis(100), Duration.ofMillis(100))
                        .jitter(0)
                        .build())
                .deadLetterQueue(ownDlq, true)
                .build()) {
      viaRedrive.start();
      viaSiglo.start();
      awaitEmpty(redriven);
      awaitEmpty(direct);
      sqs.send(direct, "d-decline", "decline");
      awaitEmpty(direct);
    }
    assertThat(calls.get("flaky")).hasValue(2);
    assertThat(calls.get("decline"))
        .as("declined once; the duplicate was deleted without the handler")
        .hasValue(1);
    assertThat(calls.get("down"))
        .as("3 receives on the redriven queue, 3 on the direct one")
        .hasValue(6);
    List<Message> redrove = sqs.drain(redriveDlq);
    assertThat(redrove).extracting(Message::body).containsExactly("down");
    List<Message> own = sqs.drain(ownDlq);
    assertThat(own)
        .as("the exhausted message, and one copy of the decline (not of its replayed duplicate)")
        .extracting(Message::body)
        .containsExactlyInAnyOrder("down", "decline");
    Message declined =
        own.stream().filter(m -> m.body().equals("decline")).findFirst().orElseThrow();
    assertThat(declined.messageAttributes().get("siglo.dlq.reason").stringValue())
        .isEqualTo("DECLINED");
    assertThat(declined.messageAttributes().get("siglo.dlq.classification").stringValue())
        .isEqualTo("PERMANENT");
    Message dead = own.stream().filter(m -> m.body().equals("down")).findFirst().orElseThrow();
    assertThat(dead.messageAttributes().get("siglo.dlq.reason").stringValue())
        .isEqualTo("RETRIES_EXHAUSTED");
    assertThat(dead.messageAttributes().get("siglo.dlq.classification").stringValue())
        .isEqualTo("TRANSIENT");
    assertThat(dead.messageAttributes().get("siglo.dlq.exception-class").stringValue())
        .isEqualTo("java.io.IOException");
    assertThat(dead.messageAttributes().get("siglo.dlq.attempts").stringValue()).isEqualTo("3");
    assertThat(dead.messageAttributes().get("idempotency-key").stringValue()).isEqualTo("d-down");
  }

  @Test
  void aNackedMessageBecomesVisibleNoSoonerThanItsBackoff() {
    String url = sqs.queue(unique("backoff"), Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
    sqs.send(url, "slowly", "fail-once");
    List<Long> receivedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                (body, ctx) -> {
                  receivedAt.add(System.nanoTime());
                  if (receivedAt.size() == 1) {
                    throw new TransientException("try again later");
                  }
                  return null;
                })
            .retry(
                RetryConfig.custom()
                    .maxAttempts(1)
                    .redeliveryBackoff(Duration.ofSeconds(3), Duration.ofSeconds(3))
                    .jitter(0)
                    .build())
            .build()) {
      c.start();
      awaitEmpty(url);
    }
    assertThat(receivedAt).hasSize(2);
    assertThat(Duration.ofNanos(receivedAt.get(1) - receivedAt.get(0)))
        .as("the queue kept it invisible for the 3 s backoff")
        .isGreaterThanOrEqualTo(Duration.ofMillis(2_900));
  }

  @Test
  void aHandlerRunningThreeVisibilityTimeoutsIsNotRedeliveredMeanwhileAndKeepsItsClaim() {
    String url = sqs.queue(unique("heartbeat"), Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2"));
    sqs.send(url, "long-job", "work");
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();
    java.util.concurrent.atomic.AtomicLong startedAt = new java.util.concurrent.atomic.AtomicLong();
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                (body, ctx) -> {
                  runs.incrementAndGet();
                  startedAt.set(System.nanoTime());
                  Thread.sleep(6_000); // simulated work for three visibility timeouts
                  return null;
                })
            .store(store)
            .idempotency(
                dev.siglo.consumer.IdempotencyConfig.custom().lease(Duration.ofSeconds(3)).build())
            .heartbeat(Duration.ofSeconds(2), 0.5)
            .listener(
                e -> {
                  if (e instanceof dev.siglo.consumer.event.SigloEvent.Duplicate) {
                    duplicates.incrementAndGet();
                  }
                })
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> startedAt.get() != 0 && System.nanoTime() - startedAt.get() > 4_500_000_000L);
      assertThat(
              store
                  .claim(
                      new dev.siglo.consumer.store.ClaimRequest(
                          dev.siglo.consumer.key.IdempotencyKeys.defaults().key("long-job"),
                          null,
                          Duration.ofSeconds(3)))
                  .status())
          .as("the 3 s lease was renewed with the visibility: still held at 4.5 s")
          .isEqualTo(dev.siglo.consumer.store.ClaimStatus.IN_PROGRESS);
      awaitEmpty(url);
    }
    assertThat(runs).hasValue(1);
    assertThat(duplicates).as("never received a second time").hasValue(0);
  }

  @Test
  void twoConsumersBuiltFromOneBuilderEachRenewTheClaimsOfTheirOwnMessages() throws Exception {
    Map<QueueAttributeName, String> visibility2s =
        Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "2");
    String first = sqs.queue(unique("first"), visibility2s);
    String second = sqs.queue(unique("second"), visibility2s);
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicLong startedAt = new java.util.concurrent.atomic.AtomicLong();
    SigloSqsConsumer.Builder<String> builder =
        consumer(
                first,
                (body, ctx) -> {
                  startedAt.set(System.nanoTime());
                  running.countDown();
                  finish.await(30, java.util.concurrent.TimeUnit.SECONDS);
                  return null;
                })
            .store(store)
            .idempotency(
                dev.siglo.consumer.IdempotencyConfig.custom().lease(Duration.ofSeconds(3)).build())
            .heartbeat(Duration.ofSeconds(2), 0.5);
    try (SigloSqsConsumer<String> c1 = builder.build();
        SigloSqsConsumer<String> c2 = builder.queueUrl(second).build()) {
      c1.start();
      c2.start(); // started last: a claim sink shared through the builder pointed here
      sqs.send(first, "long-job-1", "work");
      assertThat(running.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> System.nanoTime() - startedAt.get() > 4_500_000_000L);

      assertThat(
              store
                  .claim(
                      new dev.siglo.consumer.store.ClaimRequest(
                          dev.siglo.consumer.key.IdempotencyKeys.defaults().key("long-job-1"),
                          null,
                          Duration.ofSeconds(3)))
                  .status())
          .as("the first consumer renewed its own message's 3 s lease")
          .isEqualTo(dev.siglo.consumer.store.ClaimStatus.IN_PROGRESS);
      finish.countDown();
      awaitEmpty(first);
    }
  }

  @Test
  void fifoGroupsKeepTheirOrderRunInParallelAndAFailingMessageHoldsOnlyItsGroup() {
    String url =
        sqs.queue(
            unique("orders") + ".fifo",
            Map.of(
                QueueAttributeName.FIFO_QUEUE,
                "true",
                QueueAttributeName.VISIBILITY_TIMEOUT,
                "30"));
    for (int seq = 0; seq < 10; seq++) {
      for (String group : List.of("g1", "g2", "g3")) {
        sqs.sendFifo(url, group, group + "-" + seq, group + ":" + seq);
      }
    }
    Map<String, List<Integer>> order = new ConcurrentHashMap<>();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    // the first handler waits (up to 10 s) for a second to start: a runtime that ran the groups
    // one at a time never gets there, whatever the machine's load
    java.util.concurrent.CountDownLatch overlap = new java.util.concurrent.CountDownLatch(2);
    AtomicInteger g2Failures = new AtomicInteger();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                (body, ctx) -> {
                  maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                  try {
                    overlap.countDown();
                    overlap.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    String group = body.substring(0, 2);
                    int seq = Integer.parseInt(body.substring(3));
                    if (body.equals("g2:3") && g2Failures.getAndIncrement() == 0) {
                      throw new TransientException("g2:3 fails once");
                    }
                    Thread.sleep(20); // simulated work, so groups overlap
                    order
                        .computeIfAbsent(
                            group, k -> new java.util.concurrent.CopyOnWriteArrayList<>())
                        .add(seq);
                    return null;
                  } finally {
                    running.decrementAndGet();
                  }
                })
            .retry(
                RetryConfig.custom()
                    .maxAttempts(1)
                    .redeliveryBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                    .jitter(0)
                    .build())
            .build()) {
      c.start();
      awaitEmpty(url);
    }
    List<Integer> inOrder = java.util.stream.IntStream.range(0, 10).boxed().toList();
    assertThat(order).containsOnlyKeys("g1", "g2", "g3");
    assertThat(order.values()).allSatisfy(seqs -> assertThat(seqs).isEqualTo(inOrder));
    assertThat(maxRunning.get()).as("groups ran in parallel").isGreaterThan(1);
    assertThat(g2Failures).hasValue(2);
  }

  @Test
  void shutdownMidRunAndRestartLosesNothingAndRunsNothingTwice() {
    String url = sqs.queue(unique("restart"), Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
    int keys = 600;
    List<String[]> messages = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      messages.add(new String[] {"job-" + k, "v"});
    }
    sqs.sendAll(url, messages);
    Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    MessageHandler<String> slow =
        (body, ctx) -> {
          Thread.sleep(10); // simulated work
          effects
              .computeIfAbsent(
                  ctx.message().header("idempotency-key").orElseThrow(), k -> new AtomicInteger())
              .incrementAndGet();
          return null;
        };
    SigloSqsConsumer<String> first = consumer(url, slow).store(store).threads(1, 4, 40).build();
    first.start();
    await().atMost(Duration.ofSeconds(60)).until(() -> effects.size() > keys / 4);
    first.close(Duration.ofSeconds(10));
    assertThat(first.termination()).isCompleted();
    // released, not left to the 30 s visibility timeout: a receive still in flight when close()
    // returns (the poller's 200 ms grace passes on a loaded machine) hands its messages back when
    // it returns, so this waits well under the visibility timeout rather than not at all
    await("unstarted messages released, not expired")
        .atMost(Duration.ofSeconds(15))
        .until(() -> sqs.inFlight(url) == 0);
    assertThat(effects.size()).isLessThan(keys);
    try (SigloSqsConsumer<String> second =
        consumer(url, slow).store(store).threads(1, 4, 40).build()) {
      second.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> sqs.remaining(url) == 0);
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  record Order(String orderId, long amount) {}

  @Test
  void poisonMessagesAreDeadLetteredWithAReasonAndTheMessagesAroundThemAreProcessed() {
    String url = sqs.queue(unique("poison"), Map.of());
    String dlq = sqs.queue(unique("poison-dlq"), Map.of());
    sqs.send(url, "before", "{\"orderId\":\"o-1\",\"amount\":5}");
    sqs.send(url, "bad-json", "{not json");
    sqs.sqs.sendMessage(b -> b.queueUrl(url).messageBody("{\"orderId\":\"o-2\",\"amount\":5}"));
    sqs.sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("{\"orderId\":\"o-3\",\"amount\":5}")
                .messageAttributes(
                    Map.of("idempotency-key", SqsTestSupport.text("evil\nline\u202e"))));
    sqs.sqs.sendMessage(
        b ->
            b.queueUrl(url)
                .messageBody("{\"orderId\":\"o-5\",\"amount\":5}")
                .messageAttributes(
                    Map.of("idempotency-key", SqsTestSupport.text("k".repeat(5_000)))));
    sqs.send(url, "after", "{\"orderId\":\"o-4\",\"amount\":5}");
    List<String> handled = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (SigloSqsConsumer<Order> c =
        SigloSqsConsumer.builder(
                PayloadDecoder.json(Order.class),
                (Order o, dev.siglo.consumer.HandlerContext ctx) -> handled.add(o.orderId()))
            .client(sqs.sqs)
            .queueUrl(url)
            .waitTime(Duration.ofSeconds(1))
            .keyExtractor(dev.siglo.consumer.key.KeyExtractors.attribute("idempotency-key"))
            .deadLetterQueue(dlq, false)
            .build()) {
      c.start();
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(handled).containsExactlyInAnyOrder("o-1", "o-4");
    assertThat(sqs.drain(dlq))
        .extracting(m -> m.messageAttributes().get("siglo.dlq.reason").stringValue())
        .containsExactlyInAnyOrder("POISON_PAYLOAD", "MISSING_KEY", "INVALID_KEY", "INVALID_KEY");
  }

  @Test
  void inFlightCountsMessagesBeingHandledNotTheIdleLongPoll() throws Exception {
    String url = sqs.queue(unique("in-flight"), Map.of());
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
    RecordingSqsClient recording = new RecordingSqsClient(sqs.sqs);
    try (SigloSqsConsumer<String> c =
        SigloSqsConsumer.builder(
                PayloadDecoder.utf8(),
                (String body, dev.siglo.consumer.HandlerContext ctx) -> {
                  started.countDown();
                  finish.await();
                  return null;
                })
            .client(recording.client)
            .queueUrl(url)
            .waitTime(Duration.ofSeconds(20))
            .metrics(registry)
            .build()) {
      c.start();
      // idle: a long poll is outstanding (its permits are held), nothing is being handled
      await().atMost(Duration.ofSeconds(30)).until(() -> recording.receivesInFlight.get() == 1);
      io.micrometer.core.instrument.Gauge gauge =
          registry.get(dev.siglo.consumer.metrics.SigloMetrics.IN_FLIGHT).gauge();
      assertThat(gauge.value()).isZero();
      sqs.sendAll(url, List.<String[]>of(new String[] {"k-1", "one"}));
      assertThat(started.await(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(gauge.value()).isEqualTo(1.0);
      finish.countDown();
      await().atMost(Duration.ofSeconds(30)).until(() -> gauge.value() == 0.0);
    }
  }
}
