package dev.siglo.sqs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;

/** The flushers' delete batches, against a client that answers only when told to. */
class QueueActionsTest {
  private static SqsRuntimeConfig settings(int pollers) {
    return new SqsRuntimeConfig(
        "http://127.0.0.1/q",
        false,
        pollers,
        8,
        64,
        Duration.ofSeconds(20),
        Duration.ofSeconds(30),
        0.5,
        Duration.ofSeconds(30), // no partial batch within the test
        null,
        false,
        null,
        dev.siglo.consumer.WorkerThreads.platform(),
        dev.siglo.consumer.engine.Batching.NONE);
  }

  /** Deletes answer once {@code together} of them are in flight at once (or after 10 s). */
  private static final class BlockingDeletes implements SqsClient {
    final CountDownLatch inFlight;
    final List<Boolean> sawOthers = new CopyOnWriteArrayList<>();
    final Set<String> deleted = ConcurrentHashMap.newKeySet();
    final List<Integer> sizes = new CopyOnWriteArrayList<>();

    BlockingDeletes(int together) {
      inFlight = new CountDownLatch(together);
    }

    @Override
    public DeleteMessageBatchResponse deleteMessageBatch(DeleteMessageBatchRequest request) {
      sizes.add(request.entries().size());
      request.entries().stream()
          .map(DeleteMessageBatchRequestEntry::receiptHandle)
          .forEach(deleted::add);
      inFlight.countDown();
      try {
        sawOthers.add(inFlight.await(10, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return DeleteMessageBatchResponse.builder().build();
    }

    @Override
    public String serviceName() {
      return "sqs";
    }

    @Override
    public void close() {}
  }

  private static void deleteMessages(QueueActions actions, int from, int to) {
    for (int i = from; i < to; i++) {
      actions.delete(Message.builder().messageId("m" + i).receiptHandle("r" + i).build());
    }
  }

  @Test
  void fullDeleteBatchesLeaveOnSeveralFlushersAtOnce() {
    BlockingDeletes sqs = new BlockingDeletes(2);
    try (QueueActions actions = new QueueActions(sqs, settings(1))) {
      deleteMessages(actions, 0, 10);
      deleteMessages(actions, 10, 20); // a second full batch while the first is in flight
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> sqs.sawOthers.size() == 2);
    }
    assertThat(QueueActions.flushers(settings(1))).isEqualTo(2);
    assertThat(QueueActions.flushers(settings(4))).isEqualTo(4);
    assertThat(sqs.sawOthers)
        .as("each batch was sent while the other was in flight")
        .containsOnly(true);
    assertThat(sqs.sizes).containsExactly(10, 10);
    assertThat(sqs.deleted).hasSize(20);
  }
}
