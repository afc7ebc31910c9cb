package dev.siglo.sqs;

import dev.siglo.testkit.SqsServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/** Sending, counting and peeking at queues on the test endpoint. */
final class SqsTestSupport {
  final SqsClient sqs;
  private final SqsServer server;

  SqsTestSupport(SqsServer server) {
    this.server = server;
    this.sqs = server.client();
  }

  String queue(String name, Map<QueueAttributeName, String> attributes) {
    return server.createQueue(name, attributes);
  }

  String arn(String url) {
    return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN))
        .attributes()
        .get(QueueAttributeName.QUEUE_ARN);
  }

  static MessageAttributeValue text(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  /** Sends messages in batches of ten: each entry is {key or null, body}. */
  void sendAll(String url, List<String[]> messages) {
    for (int i = 0; i < messages.size(); i += 10) {
      List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
      for (int j = i; j < Math.min(i + 10, messages.size()); j++) {
        String[] m = messages.get(j);
        SendMessageBatchRequestEntry.Builder e =
            SendMessageBatchRequestEntry.builder().id("m" + j).messageBody(m[1]);
        if (m[0] != null) {
          e.messageAttributes(Map.of("idempotency-key", text(m[0])));
        }
        batch.add(e.build());
      }
      sqs.sendMessageBatch(b -> b.queueUrl(url).entries(batch));
    }
  }

  void send(String url, String key, String body) {
    sqs.sendMessage(
        b -> {
          b.queueUrl(url).messageBody(body);
          if (key != null) {
            b.messageAttributes(Map.of("idempotency-key", text(key)));
          }
        });
  }

  void sendFifo(String url, String group, String dedup, String body) {
    sqs.sendMessage(
        b -> b.queueUrl(url).messageBody(body).messageGroupId(group).messageDeduplicationId(dedup));
  }

  /**
   * @return visible plus in-flight (not visible) messages
   */
  int remaining(String url) {
    return (int) SqsServer.messagesIn(sqs, url);
  }

  /**
   * @return messages received by someone and not yet deleted or released
   */
  int inFlight(String url) {
    return Integer.parseInt(
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(url)
                        .attributeNames(
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
            .attributes()
            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
  }

  /** Receives (and deletes) everything currently visible in a queue. */
  List<Message> drain(String url) {
    List<Message> out = new ArrayList<>();
    while (true) {
      List<Message> got =
          sqs.receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                          .messageAttributeNames("All"))
              .messages();
      if (got.isEmpty()) {
        return out;
      }
      for (Message m : got) {
        out.add(m);
        sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle()));
      }
    }
  }
}
