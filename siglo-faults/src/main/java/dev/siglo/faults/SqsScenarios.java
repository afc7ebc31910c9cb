package dev.siglo.faults;

import dev.siglo.testkit.SqsServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Scenario 7, on ElasticMQ: a consumer killed with messages in flight (their visibility expires and
 * they are delivered again), and handlers slower than the visibility timeout (the heartbeat must
 * keep them invisible).
 */
final class SqsScenarios {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final int VISIBILITY_SECONDS = 4;

  private final Lab lab;
  private final FaultSize size;

  SqsScenarios(Lab lab, FaultSize size) {
    this.lab = lab;
    this.size = size;
  }

  private Verdict run(
      String scenario,
      String mode,
      String faults,
      Manifest manifest,
      Map<String, String> overrides,
      KafkaScenarios.Faults schedule)
      throws Exception {
    long start = System.nanoTime();
    int number = RUNS.incrementAndGet(); // scenarios run in parallel lanes
    String id = scenario + "/" + mode + "/" + number;
    String name = "faults-" + number + "-" + mode;
    Map<QueueAttributeName, String> attrs =
        Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, Integer.toString(VISIBILITY_SECONDS));
    String url = lab.sqs.createQueue(name, attrs);
    String dlq = lab.sqs.createQueue(name + "-dlq", Map.of());
    try (SqsClient sqs = lab.sqs.client()) {
      send(sqs, url, manifest);
      Map<String, String> args = lab.consumerArgs("sqs", mode, id);
      args.put("endpoint", lab.sqs.endpoint().toString());
      args.put("queueUrl", url);
      args.put("dlqUrl", dlq);
      args.put("visibilitySeconds", Integer.toString(VISIBILITY_SECONDS));
      args.put("slowMillis", Long.toString(VISIBILITY_SECONDS * 2_500L));
      args.putAll(overrides);
      try (Run run = new Run(id, args, lab.effects, lab.logDir)) {
        run.startConsumer();
        schedule.inject(run);
        Awaitility.await(id + ": queue empty")
            .atMost(Duration.ofMinutes(size.minutesPerScenario()))
            .pollInterval(Duration.ofMillis(500))
            .until(() -> SqsServer.messagesIn(sqs, url) == 0);
        run.stopAll();
        return Checker.check(
            run,
            mode,
            faults,
            manifest,
            deadLetters(sqs, dlq),
            SqsServer.messagesIn(sqs, url) == 0,
            (System.nanoTime() - start) / 1e9);
      }
    }
  }

  private static void send(SqsClient sqs, String url, Manifest manifest) {
    List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
    int i = 0;
    for (Manifest.Item item : manifest.items) {
      SendMessageBatchRequestEntry.Builder e =
          SendMessageBatchRequestEntry.builder()
              .id(Integer.toString(i++))
              .messageBody(new String(item.payload(), StandardCharsets.UTF_8));
      if (item.key() != null) {
        e.messageAttributes(
            Map.of(
                "idempotency-key",
                MessageAttributeValue.builder()
                    .dataType("String")
                    .stringValue(item.key())
                    .build()));
      }
      batch.add(e.build());
      if (batch.size() == 10) {
        sendBatch(sqs, url, batch, manifest);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      sendBatch(sqs, url, batch, manifest);
    }
  }

  private static void sendBatch(
      SqsClient sqs, String url, List<SendMessageBatchRequestEntry> batch, Manifest manifest) {
    List<SendMessageBatchRequestEntry> entries = List.copyOf(batch);
    var response = sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries));
    if (!response.failed().isEmpty()) {
      throw new IllegalStateException("sending the manifest failed: " + response.failed());
    }
    response.successful().forEach(e -> manifest.coordinates.add(e.messageId()));
  }

  private static Map<String, Integer> deadLetters(SqsClient sqs, String dlq) {
    Map<String, Integer> reasons = new HashMap<>();
    while (true) {
      List<Message> got =
          sqs.receiveMessage(
                  b ->
                      b.queueUrl(dlq)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(0)
                          .visibilityTimeout(600)
                          .messageAttributeNames("All"))
              .messages();
      if (got.isEmpty()) {
        return reasons;
      }
      for (Message m : got) {
        MessageAttributeValue reason = m.messageAttributes().get("siglo.dlq.reason");
        reasons.merge(reason == null ? "?" : reason.stringValue(), 1, Integer::sum);
      }
    }
  }

  /** The consumer SIGKILLed twice with messages in flight, restarted at once. */
  Verdict consumerKills(String mode) throws Exception {
    Manifest m = Manifest.duplicates("sqs-kills", size.keys(), size.copies(), 0, 7);
    return run(
        "SQS consumer SIGKILL",
        mode,
        "2 × SIGKILL with messages in flight; visibility " + VISIBILITY_SECONDS + " s",
        m,
        Map.of(),
        run -> {
          for (int k = 1; k <= 2; k++) {
            run.awaitEffects(m.effectKeys.size() * k / 3, Duration.ofMinutes(3));
            run.consumers.get(run.consumers.size() - 1).kill();
            run.startConsumer();
          }
        });
  }

  /**
   * Every 100th key's handler runs 2.5 × the visibility timeout and more than 3 × its lease; every
   * key is sent {@code copies} times and a second consumer joins at a third of the run, so copies
   * of a long handler's key are received, by its own process and the other, while it runs. The
   * heartbeat keeps its message, the engine's renewal its claim: the copies wait and settle, and
   * the long handler is never taken over.
   */
  Verdict slowHandlers(String mode) throws Exception {
    Manifest m = Manifest.duplicates("sqs-slow", size.keys(), size.copies(), 100, 8);
    return run(
        "SQS handlers longer than visibility and 3 × lease",
        mode,
        m.slow
            + " handlers of "
            + VISIBILITY_SECONDS * 2.5
            + " s, visibility "
            + VISIBILITY_SECONDS
            + " s, lease 3 s, "
            + size.copies()
            + " copies of each key, a second consumer joins",
        m,
        Map.of("leaseMillis", "3000"),
        run -> {
          run.noCrashes = true;
          run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
          run.startConsumer();
        });
  }

  /**
   * The store stopped longer than the redelivery budget: receiving pauses, nothing dead-letters.
   */
  Verdict storeOutage(String mode) throws Exception {
    Manifest m = Manifest.duplicates("sqs-outage", size.keys(), size.copies(), 0, 10);
    return run(
        "SQS store outage",
        mode,
        Lab.outageText(mode, size.outage()),
        m,
        Map.of(),
        run -> {
          run.noCrashes = true;
          run.awaitEffects(m.effectKeys.size() / 3, Duration.ofMinutes(3));
          lab.storeOutage(run, mode, size.outage());
        });
  }
}
