package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.testkit.SqsServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * The requests the SQS runtime makes of the queue, on ElasticMQ with the real SDK client (seen
 * through {@link RecordingSqsClient}): full receives of ten from a deep queue by two pollers that
 * compete for the in-flight slots the workers free, deletes and visibility changes sent by the
 * runtime's flusher in batches rather than by the workers, and a {@code close()} that does not wait
 * out a long poll.
 */
class SigloSqsConsumerRequestsIT {
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

  private static String queue(String name) {
    return sqs.queue(
        name + "-" + System.nanoTime(), Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "30"));
  }

  @Test
  void aBusyConsumerReceivesTenAtATimeAndOnlyItsFlusherSendsDeletesAndVisibilityChanges() {
    String url = queue("deep");
    int total = 2_000;
    List<String[]> messages = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      messages.add(new String[] {"order-" + i, i % 500 == 0 ? "fail-once" : "ok"});
    }
    sqs.sendAll(url, messages);
    RecordingSqsClient recording = new RecordingSqsClient(sqs.sqs);
    String testThread = Thread.currentThread().getName(); // close() flushes what is left
    Set<String> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger runs = new AtomicInteger();
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    try (SigloSqsConsumer<String> c =
        SigloSqsConsumer.builder(
                PayloadDecoder.utf8(),
                (String v, dev.siglo.consumer.HandlerContext ctx) -> {
                  runs.incrementAndGet();
                  if (v.equals("fail-once") && ctx.message().deliveryAttempt() == 1) {
                    throw new TransientException("gateway 503"); // nacked: a visibility change
                  }
                  handled.add(ctx.idempotencyKey().orElseThrow());
                  return null;
                })
            .client(recording.client)
            .queueUrl(url)
            .threads(2, 8, 32)
            .waitTime(Duration.ofSeconds(1))
            .metrics(registry)
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> sqs.remaining(url) == 0);
    }

    assertThat(handled).hasSize(total);
    assertThat(recording.meanNonEmptyReceive())
        .as("messages per receive (%s)", recording.receives)
        .isGreaterThanOrEqualTo(9.5);
    assertThat(recording.batchThreads)
        .as("deletes and visibility changes, all in batches")
        .isNotEmpty()
        .allSatisfy(
            t ->
                assertThat(t)
                    .satisfiesAnyOf(
                        name -> assertThat(name).startsWith("siglo-sqs-flusher-"),
                        name -> assertThat(name).isEqualTo(testThread)));
    assertThat(recording.singleThreads).as("no single-message request").isEmpty();
    var perReceive = registry.get(dev.siglo.consumer.metrics.SigloMetrics.RECEIVED).summary();
    assertThat(perReceive.count()).as("receives that returned messages").isPositive();
    assertThat(perReceive.totalAmount())
        .as("messages received, redeliveries included")
        .isGreaterThanOrEqualTo(total);
    assertThat(perReceive.mean())
        .as("siglo.received's mean")
        .isCloseTo(recording.meanNonEmptyReceive(), org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void closeDoesNotWaitOutALongPollAndWhatThatPollReceivesIsHandedBackAtOnce() {
    String url = queue("long-poll");
    RecordingSqsClient recording = new RecordingSqsClient(sqs.sqs);
    AtomicInteger runs = new AtomicInteger();
    SigloSqsConsumer<String> c =
        SigloSqsConsumer.builder(
                PayloadDecoder.utf8(),
                (String v, dev.siglo.consumer.HandlerContext ctx) -> runs.incrementAndGet())
            .client(recording.client)
            .queueUrl(url)
            .threads(1, 2, 8)
            .waitTime(Duration.ofSeconds(20))
            .build();
    c.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> recording.receivesInFlight.get() == 1);

    c.close();

    assertThat(recording.receivesInFlight)
        .as("close() returned while the 20 s long poll was still waiting")
        .hasValue(1);
    int before = recording.receives.size();
    sqs.send(url, "order-late", "late");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> recording.receives.size() > before && recording.receives.get(before) == 1);
    // handed back with visibility 0: visible again long before its 30 s visibility timeout
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                !sqs.sqs
                    .receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1))
                    .messages()
                    .isEmpty());
    assertThat(runs).as("no handler ran after close").hasValue(0);
  }
}
