package dev.siglo.kafka.internal;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Maps a Kafka record to the engine's {@link Message}. Stateless. */
public final class RecordMapper {
  private RecordMapper() {}

  /**
   * @param r the record
   * @param attempt its delivery attempt
   * @return the message
   */
  public static Message toMessage(ConsumerRecord<byte[], byte[]> r, int attempt) {
    Message.Builder b =
        Message.builder(
                r.topic() + "-" + r.partition() + "@" + r.offset(),
                new MessageSource("kafka", r.topic(), r.partition(), r.offset()))
            .payload(r.value())
            .timestamp(Instant.ofEpochMilli(Math.max(0, r.timestamp())))
            .deliveryAttempt(attempt);
    if (r.key() != null) {
      b.recordKey(new String(r.key(), StandardCharsets.UTF_8));
    }
    for (Header h : r.headers()) {
      if (h.value() != null) {
        b.header(h.key(), new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return b.build();
  }
}
