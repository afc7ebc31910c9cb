package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.PermanentException;
import dev.siglo.consumer.TransientException;
import dev.siglo.consumer.engine.RetrySettings;
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
    RetrySettings fast =
        RetrySettings.custom()
            .maxAttempts(1)
            .maxDeliveries(10)
            .redeliveryBackoff(Duration.ofMillis(100), Duration.ofMillis(100))
            .jitter(0)
            .build();
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
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
                    RetrySettings.custom()
                        .maxAttempts(1)
                        .maxDeliveries(3)
                        .redeliveryBackoff(Duration.ofMillis(100), Duration.ofMillis(100))
                        .jitter(0)
                        .build())
                .deadLetterQueue(ownDlq, false)
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
    assertThat(own).extracting(Message::body).containsExactly("down");
    Message dead = own.get(0);
    assertThat(dead.messageAttributes().get("siglo.dlq.reason").stringValue())
        .isEqualTo("RETRIES_EXHAUSTED");
    assertThat(dead.messageAttributes().get("siglo.dlq.classification").stringValue())
        .isEqualTo("TRANSIENT");
    assertThat(dead.messageAttributes().get("siglo.dlq.exception-class").stringValue())
        .isEqualTo("java.io.IOException");
    assertThat(dead.messageAttributes().get("siglo.dlq.attempts").stringValue()).isEqualTo("3");
    assertThat(dead.messageAttributes().get("idempotency-key").stringValue()).isEqualTo("d-down");
  }
}
