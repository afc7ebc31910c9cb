package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.testkit.SqsServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link BatchMessageHandler}s on ElasticMQ with the AWS SDK client, at the default batch size,
 * linger and retries: one effect per key under concurrent duplicates, each message of a batch
 * ending on its own (deleted, declined and cached, retried, sent to the dead-letter queue), and a
 * FIFO group held, undeleted and in order, behind a message that has not completed.
 */
class BatchHandlerSqsIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();
  private static SqsTestSupport sqs;

  /** Bodies the decoder refuses: poison. */
  private static final PayloadDecoder<String> DECODER =
      m -> {
        String s = new String(m.payload(), StandardCharsets.UTF_8);
        if (s.startsWith("poison")) {
          throw new IllegalArgumentException("unreadable body");
        }
        return s;
      };

  private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
  private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger deadLettered = new AtomicInteger();

  @BeforeAll
  static void connect() {
    sqs = new SqsTestSupport(SQS.server());
  }

  @AfterAll
  static void disconnect() {
    sqs.sqs.close();
  }

  private SigloSqsConsumer.Builder<String> consumer(String url, BatchMessageHandler<String> h) {
    return SigloSqsConsumer.batchBuilder(
            DECODER,
            (List<BatchItem<String>> batch) -> {
              batchSizes.add(batch.size());
              batch.forEach(item -> seen.add(item.value()));
              return h.handle(batch);
            })
        .client(sqs.sqs)
        .queueUrl(url)
        .listener(
            e -> {
              if (e instanceof SigloEvent.DeadLettered) {
                deadLettered.incrementAndGet();
              }
            });
  }

  private void effect(String name) {
    effects.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
  }

  private static void awaitEmpty(String url) {
    await().atMost(Duration.ofSeconds(120)).until(() -> sqs.remaining(url) == 0);
  }

  @Test
  void eachKeyRunsOnceUnderConcurrentDuplicatesHandledInBatches() {
    String url = sqs.queue(SigloSqsConsumerIT.unique("batch-dups"), Map.of());
    int keys = 300;
    List<String[]> messages = new ArrayList<>();
    for (int copy = 0; copy < 3; copy++) {
      for (int k = 0; k < keys; k++) {
        messages.add(new String[] {"order-" + k, "order-" + k});
      }
    }
    sqs.sendAll(url, messages);
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                batch -> {
                  batch.forEach(item -> effect(item.value()));
                  return BatchResult.allSucceeded();
                })
            .build()) {
      c.start();
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).hasSize(keys);
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(batchSizes.stream().mapToInt(Integer::intValue).max().orElseThrow())
        .as("messages were handed over in batches")
        .isGreaterThan(1)
        .isLessThanOrEqualTo(ConsumerBuilder.DEFAULT_BATCH_SIZE);
    assertThat(deadLettered).hasValue(0);
  }

  @Test
  void aBatchWithADeclineATransientFailureAndPoisonEndsEachMessageOnItsOwn() {
    String dlq = sqs.queue(SigloSqsConsumerIT.unique("batch-mixed-dlq"), Map.of());
    String url = sqs.queue(SigloSqsConsumerIT.unique("batch-mixed"), Map.of());
    sqs.sendAll(
        url,
        List.of(
            new String[] {"ok-1", "ok-1"},
            new String[] {"declined", "declined"},
            new String[] {"flaky", "flaky"},
            new String[] {"poison", "poison"},
            new String[] {"ok-2", "ok-2"}));
    AtomicInteger flakyCalls = new AtomicInteger();
    BatchMessageHandler<String> handler =
        batch -> {
          BatchResult.Builder r = BatchResult.builder();
          for (BatchItem<String> item : batch) {
            switch (item.value()) {
              case "declined" -> r.failure(item, new PermanentException("card declined"));
              case "flaky" -> {
                if (flakyCalls.incrementAndGet() == 1) {
                  r.failure(item, new TransientException("gateway timeout"));
                } else {
                  effect(item.value());
                }
              }
              default -> effect(item.value());
            }
          }
          return r.build();
        };
    InMemoryIdempotencyStore store = InMemoryIdempotencyStore.of();
    try (SigloSqsConsumer<String> c =
        consumer(url, handler).store(store).deadLetterQueue(dlq, false).build()) {
      c.start();
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(effects).containsOnlyKeys("ok-1", "flaky", "ok-2");
    assertThat(effects.values()).allMatch(n -> n.get() == 1);
    assertThat(flakyCalls).hasValue(2);
    List<Message> dead = sqs.drain(dlq);
    assertThat(dead).extracting(Message::body).containsExactly("poison");
    assertThat(
            dead.get(0)
                .messageAttributes()
                .get(DeadLetters.SQS_ATTRIBUTE_PREFIX + DeadLetters.REASON)
                .stringValue())
        .isEqualTo("POISON_PAYLOAD");

    // sent again: the decline is replayed from the store, the handler does not see it
    seen.clear();
    sqs.sendAll(url, List.of(new String[] {"declined", "declined"}, new String[] {"ok-3", "ok-3"}));
    try (SigloSqsConsumer<String> c =
        consumer(url, handler).store(store).deadLetterQueue(dlq, false).build()) {
      c.start();
      awaitEmpty(url);
    }
    assertThat(seen).containsExactly("ok-3");
    assertThat(deadLettered).hasValue(1);
  }

  @Test
  void aFifoGroupWaitsUndeletedAndInOrderBehindAMessageThatHasNotCompleted() {
    String url =
        sqs.queue(
            SigloSqsConsumerIT.unique("batch-fifo") + ".fifo",
            Map.of(QueueAttributeName.FIFO_QUEUE, "true"));
    for (int seq = 0; seq < 4; seq++) {
      sqs.sendFifo(url, "held", "held-" + seq, "held:" + seq);
    }
    for (int seq = 0; seq < 10; seq++) {
      sqs.sendFifo(url, "fast-" + seq % 3, "fast-" + seq, "fast:" + seq);
    }
    AtomicBoolean gatewayUp = new AtomicBoolean();
    List<String> done = new CopyOnWriteArrayList<>();
    try (SigloSqsConsumer<String> c =
        consumer(
                url,
                batch -> {
                  BatchResult.Builder r = BatchResult.builder();
                  for (BatchItem<String> item : batch) {
                    if (item.value().equals("held:0") && !gatewayUp.get()) {
                      r.failure(item, new TransientException("gateway down"));
                    } else {
                      done.add(item.value());
                    }
                  }
                  return r.build();
                })
            .build()) {
      c.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> done.size() == 10 && sqs.remaining(url) == 4);
      assertThat(seen.stream().filter(v -> v.startsWith("held")))
          .as("the group's later messages wait behind its first")
          .containsOnly("held:0");
      assertThat(sqs.remaining(url)).as("the held group is not deleted").isEqualTo(4);

      gatewayUp.set(true);
      awaitEmpty(url);
      assertThat(c.isRunning()).isTrue();
    }
    assertThat(done.stream().filter(v -> v.startsWith("held")))
        .containsExactly("held:0", "held:1", "held:2", "held:3");
    for (int g = 0; g < 3; g++) {
      String prefix = "fast:";
      int group = g;
      List<String> expected =
          IntStream.range(0, 10).filter(s -> s % 3 == group).mapToObj(s -> prefix + s).toList();
      assertThat(done.stream().filter(expected::contains)).containsExactlyElementsOf(expected);
    }
    assertThat(deadLettered).hasValue(0);
  }
}
