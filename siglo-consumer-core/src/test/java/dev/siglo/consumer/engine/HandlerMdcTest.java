package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.Sha256;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class HandlerMdcTest {
  private static Map<String, String> seenBy(Message message) {
    AtomicReference<Map<String, String>> seen = new AtomicReference<>();
    MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.builder(
                    PayloadDecoder.utf8(),
                    (String body, dev.siglo.consumer.HandlerContext ctx) -> {
                      seen.set(new HashMap<>(MDC.getCopyOfContextMap()));
                      return null;
                    })
                .store(InMemoryIdempotencyStore.of())
                .build());
    Disposition d = p.process(message);
    assertThat(d).isInstanceOf(Disposition.Ack.class);
    return seen.get();
  }

  @Test
  void theHandlerLogsWithItsMessageAndTheKeysDigestNeverTheKey() {
    MDC.put("request", "outer");
    Map<String, String> seen =
        seenBy(
            Message.builder("orders-2@41", new MessageSource("kafka", "orders", 2, 41))
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .header("idempotency-key", "order-1234")
                .build());
    String stored = IdempotencyKeys.defaults().key("order-1234");
    assertThat(seen)
        .containsEntry("siglo.system", "kafka")
        .containsEntry("siglo.destination", "orders")
        .containsEntry("siglo.partition", "2")
        .containsEntry("siglo.offset", "41")
        .containsEntry("siglo.message_id", "orders-2@41")
        .containsEntry("siglo.key_digest", Sha256.hex(stored).substring(0, 16))
        .containsEntry("request", "outer");
    assertThat(seen.values()).noneMatch(v -> v.contains("order-1234"));
    assertThat(MDC.getCopyOfContextMap())
        .as("the thread's own entries are back, Siglo's gone")
        .containsExactlyEntriesOf(Map.of("request", "outer"));
    MDC.clear();
  }

  @Test
  void anSqsMessageHasNoPartitionOrOffset() {
    Map<String, String> seen =
        seenBy(
            Message.builder("m-1", MessageSource.of("sqs", "payments"))
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .header("idempotency-key", "k")
                .build());
    assertThat(seen)
        .containsEntry("siglo.system", "sqs")
        .containsEntry("siglo.destination", "payments")
        .containsEntry("siglo.message_id", "m-1")
        .doesNotContainKeys("siglo.partition", "siglo.offset");
  }
}
