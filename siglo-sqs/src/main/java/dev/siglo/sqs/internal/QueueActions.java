package dev.siglo.sqs.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.consumer.support.NamedThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * What the runtime does to messages: deletes (batched by ten, flushed at least every delete
 * interval, at once on FIFO queues; failed entries are retried and reported, never dropped
 * silently), visibility changes (nack with backoff, heartbeat, release) and dead-letter sends.
 * Thread-safe.
 */
final class QueueActions implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QueueActions.class);
  private static final int MAX_DELETE_TRIES = 5;
  private static final long MAX_VISIBILITY_SECONDS = 43_200;

  private record PendingDelete(String receipt, String messageId, int tries) {}

  private final SqsClient sqs;
  private final SqsRuntimeConfig settings;
  private final ConcurrentLinkedQueue<PendingDelete> deletes = new ConcurrentLinkedQueue<>();
  private final ScheduledExecutorService flusher;

  QueueActions(SqsClient sqs, SqsRuntimeConfig settings) {
    this.sqs = sqs;
    this.settings = settings;
    this.flusher =
        Executors.newSingleThreadScheduledExecutor(NamedThreads.daemon("siglo-sqs-deleter", false));
    long every = settings.deleteInterval().toMillis();
    flusher.scheduleWithFixedDelay(this::flushQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /** Acknowledges a message: deletes it (in a batch, or at once on FIFO queues). */
  void delete(Message m) {
    deletes.add(new PendingDelete(m.receiptHandle(), m.messageId(), 0));
    if (settings.fifo() || deletes.size() >= 10) {
      flush();
    }
  }

  /** Makes a message visible again after {@code delay} (0 releases it at once). */
  void changeVisibility(Message m, Duration delay) {
    long seconds = Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, (delay.toMillis() + 999) / 1000));
    sqs.changeMessageVisibility(
        b ->
            b.queueUrl(settings.queueUrl())
                .receiptHandle(m.receiptHandle())
                .visibilityTimeout((int) seconds));
  }

  /** Sends a copy to the dead-letter queue with reason attributes. */
  void sendToDeadLetterQueue(
      Message m, String reason, ErrorClass errorClass, Throwable cause, int attempts) {
    Map<String, MessageAttributeValue> attributes = new HashMap<>(m.messageAttributes());
    DeadLetters.metadata(reason, errorClass, cause, attempts)
        .forEach((n, v) -> put(attributes, n, v));
    put(attributes, DeadLetters.ORIGINAL_MESSAGE_ID, m.messageId());
    String group = SqsMessages.groupOf(m);
    sqs.sendMessage(
        b -> {
          b.queueUrl(settings.deadLetterQueueUrl())
              .messageBody(m.body())
              .messageAttributes(attributes);
          if (group != null) {
            b.messageGroupId(group).messageDeduplicationId(m.messageId());
          }
        });
  }

  private static void put(
      Map<String, MessageAttributeValue> attributes, String name, String value) {
    attributes.put(
        DeadLetters.SQS_ATTRIBUTE_PREFIX + name,
        MessageAttributeValue.builder().dataType("String").stringValue(value).build());
  }

  /** Deletes everything pending now. */
  synchronized void flush() {
    while (!deletes.isEmpty()) {
      List<PendingDelete> batch = new ArrayList<>(10);
      for (PendingDelete d; batch.size() < 10 && (d = deletes.poll()) != null; ) {
        batch.add(d);
      }
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(String.valueOf(i))
                .receiptHandle(batch.get(i).receipt())
                .build());
      }
      try {
        DeleteMessageBatchResponse response =
            sqs.deleteMessageBatch(b -> b.queueUrl(settings.queueUrl()).entries(entries));
        for (BatchResultErrorEntry failed : response.failed()) {
          retry(batch.get(Integer.parseInt(failed.id())), failed.code() + ": " + failed.message());
        }
      } catch (RuntimeException e) {
        batch.forEach(d -> retry(d, e.toString()));
        return;
      }
    }
  }

  private void retry(PendingDelete d, String why) {
    if (d.tries() + 1 >= MAX_DELETE_TRIES) {
      log.error(
          "deleting message {} failed {} times ({}); it will be redelivered and settle as a duplicate",
          d.messageId(),
          MAX_DELETE_TRIES,
          why);
      return;
    }
    log.warn("deleting message {} failed ({}); retrying", d.messageId(), why);
    deletes.add(new PendingDelete(d.receipt(), d.messageId(), d.tries() + 1));
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (RuntimeException e) {
      log.warn("flushing deletes failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    flusher.shutdownNow();
    for (int i = 0; i < MAX_DELETE_TRIES && !deletes.isEmpty(); i++) {
      flush();
    }
  }
}
