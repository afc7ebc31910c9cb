package dev.siglo.sqs.internal;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** Maps an SQS message to the engine's {@link Message}. Stateless. */
public final class SqsMessages {
  private SqsMessages() {}

  /**
   * @param m the SQS message
   * @param queueName its queue's name
   * @return the message
   */
  public static Message toMessage(
      software.amazon.awssdk.services.sqs.model.Message m, String queueName) {
    Map<MessageSystemAttributeName, String> system = m.attributes();
    int receives = parse(system.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT), 1);
    Message.Builder b =
        Message.builder(m.messageId(), MessageSource.of("sqs", queueName))
            .payload(m.body() == null ? new byte[0] : m.body().getBytes(StandardCharsets.UTF_8))
            .deliveryAttempt(Math.max(1, receives))
            .timestamp(
                Instant.ofEpochMilli(
                    parse(system.get(MessageSystemAttributeName.SENT_TIMESTAMP), 0)));
    system.forEach((name, value) -> b.systemAttribute(name.toString(), value));
    for (Map.Entry<String, MessageAttributeValue> a : m.messageAttributes().entrySet()) {
      if (a.getValue().stringValue() != null) {
        b.header(a.getKey(), a.getValue().stringValue());
      }
    }
    return b.build();
  }

  static String groupOf(software.amazon.awssdk.services.sqs.model.Message m) {
    return m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
  }

  private static int parse(String value, int fallback) {
    try {
      return value == null ? fallback : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(value));
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
