package dev.siglo.sqs;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.consumer.spi.Redrives;
import dev.siglo.sqs.internal.SqsMessages;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Redrives dead letters from Siglo's dead-letter queue back to the consumer's queue: each selected
 * message is sent with its body and attributes (the {@code siglo.dlq.*} attributes removed) plus
 * its redrive count ({@link Redrives#COUNT}) and, unless it has one, an {@code idempotency-key}
 * attribute carrying the key the consumer saw (which may have been the original's message id), so
 * that the redriven message keeps its key under the default key source; then it is deleted from the
 * dead-letter queue. A dead letter whose key completed meanwhile is deleted without a send; one at
 * the loop guard, outside the selection, or in a dry run is made visible again.
 */
public final class SqsRedrive {
  private static final int HIDE_SECONDS = 120;

  private SqsRedrive() {}

  /**
   * @param sqs the client
   * @param deadLetterQueueUrl the dead-letter queue
   * @param queueUrl where redriven messages go (the consumer's queue)
   * @param rawKey the key of a dead letter as the consumer saw its original (see {@link
   *     Redrives#rawKey}); the message it is given carries the original's message id
   * @param planner decides each dead letter and keeps the report
   */
  public static void run(
      SqsClient sqs,
      String deadLetterQueueUrl,
      String queueUrl,
      Function<Message, Optional<String>> rawKey,
      Redrives.Planner planner) {
    List<software.amazon.awssdk.services.sqs.model.Message> left = new ArrayList<>();
    String queueName = deadLetterQueueUrl.substring(deadLetterQueueUrl.lastIndexOf('/') + 1);
    while (true) {
      List<software.amazon.awssdk.services.sqs.model.Message> batch =
          sqs.receiveMessage(
                  b ->
                      b.queueUrl(deadLetterQueueUrl)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .visibilityTimeout(HIDE_SECONDS)
                          .messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                          .messageAttributeNames("All"))
              .messages();
      if (batch.isEmpty()) {
        break;
      }
      for (software.amazon.awssdk.services.sqs.model.Message m : batch) {
        String originalId =
            attribute(m, DeadLetters.SQS_ATTRIBUTE_PREFIX + DeadLetters.ORIGINAL_MESSAGE_ID)
                .orElse(m.messageId());
        Message asOriginal =
            SqsMessages.toMessage(m.toBuilder().messageId(originalId).build(), queueName);
        String key = rawKey.apply(asOriginal).orElse(null);
        int count = attribute(m, Redrives.COUNT).map(SqsRedrive::parse).orElse(0);
        Redrives.DeadLetter d =
            new Redrives.DeadLetter(
                m.messageId(),
                attribute(m, DeadLetters.SQS_ATTRIBUTE_PREFIX + DeadLetters.REASON).orElse("?"),
                Instant.ofEpochMilli(
                    parse(
                        m.attributes()
                            .getOrDefault(MessageSystemAttributeName.SENT_TIMESTAMP, "0"))),
                count,
                key);
        Redrives.Verdict v = planner.decide(d, false);
        if (planner.dryRun()
            || (v != Redrives.Verdict.REDRIVEN && v != Redrives.Verdict.COMPLETED)) {
          left.add(m);
          continue;
        }
        if (v == Redrives.Verdict.REDRIVEN) {
          send(sqs, queueUrl, m, key, count + 1);
        }
        sqs.deleteMessage(b -> b.queueUrl(deadLetterQueueUrl).receiptHandle(m.receiptHandle()));
      }
    }
    for (software.amazon.awssdk.services.sqs.model.Message m : left) {
      sqs.changeMessageVisibility(
          b ->
              b.queueUrl(deadLetterQueueUrl).receiptHandle(m.receiptHandle()).visibilityTimeout(0));
    }
  }

  private static void send(
      SqsClient sqs,
      String queueUrl,
      software.amazon.awssdk.services.sqs.model.Message m,
      String key,
      int count) {
    Map<String, MessageAttributeValue> attributes = new HashMap<>();
    m.messageAttributes()
        .forEach(
            (name, value) -> {
              if (!name.startsWith(DeadLetters.SQS_ATTRIBUTE_PREFIX)) {
                attributes.put(name, value);
              }
            });
    attributes.put(Redrives.COUNT, text(String.valueOf(count)));
    if (key != null) {
      attributes.putIfAbsent(MessageProcessorConfig.DEFAULT_KEY_HEADER, text(key));
    }
    String group = m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
    sqs.sendMessage(
        b -> {
          b.queueUrl(queueUrl).messageBody(m.body()).messageAttributes(attributes);
          if (group != null) {
            b.messageGroupId(group).messageDeduplicationId(m.messageId());
          }
        });
  }

  private static MessageAttributeValue text(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  private static Optional<String> attribute(
      software.amazon.awssdk.services.sqs.model.Message m, String name) {
    MessageAttributeValue v = m.messageAttributes().get(name);
    return v == null ? Optional.empty() : Optional.ofNullable(v.stringValue());
  }

  private static int parse(String s) {
    try {
      return (int) Math.min(Integer.MAX_VALUE, Long.parseLong(s));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
