package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/** Builds test messages keyed by the {@code idempotency-key} header. */
final class Messages {
  private static final AtomicLong OFFSETS = new AtomicLong();

  private Messages() {}

  static Message keyed(String key, String payload) {
    return keyed(key, payload, 1);
  }

  static Message keyed(String key, String payload, int deliveryAttempt) {
    long offset = OFFSETS.incrementAndGet();
    return Message.builder("orders-0@" + offset, new MessageSource("test", "orders", 0, offset))
        .header("idempotency-key", key)
        .payload(payload.getBytes(StandardCharsets.UTF_8))
        .deliveryAttempt(deliveryAttempt)
        .build();
  }

  static Message unkeyed(String payload) {
    long offset = OFFSETS.incrementAndGet();
    return Message.builder("orders-0@" + offset, new MessageSource("test", "orders", 0, offset))
        .payload(payload.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  /** The same message delivered again. */
  static Message redelivery(Message m) {
    Message.Builder b =
        Message.builder(m.id(), m.source())
            .payload(m.payload())
            .deliveryAttempt(m.deliveryAttempt() + 1);
    m.headers().forEach(b::header);
    return b.build();
  }
}
