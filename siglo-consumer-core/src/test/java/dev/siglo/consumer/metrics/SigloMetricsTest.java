package dev.siglo.consumer.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.error.PermanentException;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SigloMetricsTest {
  private static Message message(String key, String body) {
    Message.Builder b =
        Message.builder(key + "@" + System.nanoTime(), new MessageSource("kafka", "orders", 0, 1))
            .payload(body.getBytes(StandardCharsets.UTF_8));
    return key == null ? b.build() : b.header("idempotency-key", key).build();
  }

  @Test
  void countsMessagesByOutcomeAndTimesTheHandlerAndTheStore() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SigloMetrics metrics = SigloMetrics.of(registry);
    AtomicInteger flaky = new AtomicInteger();
    MessageProcessor p =
        MessageProcessor.of(
            MessageProcessorConfig.builder(
                    PayloadDecoder.utf8(),
                    (String body, dev.siglo.consumer.HandlerContext ctx) -> {
                      if (body.equals("decline")) {
                        throw new PermanentException("declined");
                      }
                      if (body.equals("flaky") && flaky.incrementAndGet() == 1) {
                        throw new TransientException("timeout");
                      }
                      return body;
                    })
                .store(metrics.timed(InMemoryIdempotencyStore.of()))
                .retry(
                    RetryConfig.custom()
                        .maxAttempts(2)
                        .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
                        .build())
                .listener(metrics)
                .build());

    p.process(message("key-a-7", "payload-body-7"));
    p.process(message("key-a-7", "payload-body-7"));
    p.process(message("key-a-7", "payload-body-7"));
    p.process(message("d", "decline"));
    p.process(message("d", "decline"));
    p.process(message("f", "flaky"));
    p.process(message(null, "no key"));

    assertThat(count(registry, "processed")).isEqualTo(2);
    assertThat(count(registry, "duplicate")).isEqualTo(2);
    assertThat(count(registry, "declined")).as("the new decline").isEqualTo(1);
    assertThat(count(registry, "decline_replayed")).as("its duplicate").isEqualTo(1);
    assertThat(count(registry, "retried")).isEqualTo(1);
    assertThat(count(registry, "dead_lettered")).isEqualTo(1);
    assertThat(registry.get(SigloMetrics.HANDLER).tag("destination", "orders").timer().count())
        .isEqualTo(2);
    assertThat(
            registry
                .get(SigloMetrics.STORE)
                .tag("operation", "claim")
                .tag("outcome", "ok")
                .timer()
                .count())
        .isEqualTo(7);
    assertThat(registry.get(SigloMetrics.STORE).tag("operation", "complete").timer().count())
        .isEqualTo(3);
    assertThat(registry.get(SigloMetrics.STORE).tag("operation", "fail").timer().count())
        .isEqualTo(1);
    assertThat(registry.getMeters())
        .as("keys and payloads are never tags")
        .allSatisfy(
            m ->
                assertThat(m.getId().getTags())
                    .noneMatch(
                        t ->
                            t.getValue().contains("key-a-7")
                                || t.getValue().contains("payload-body-7")));
  }

  private static double count(SimpleMeterRegistry registry, String outcome) {
    return registry.get(SigloMetrics.MESSAGES).tag("outcome", outcome).counter().count();
  }
}
