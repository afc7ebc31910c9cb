package dev.siglo.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.store.ClaimRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OptionsValidationTest {

  @Test
  void idempotencyOptionsRejectBadDurationsAndCombinations() {
    assertThatThrownBy(() -> IdempotencyConfig.custom().ttl(Duration.ZERO))
        .hasMessage("ttl must be positive, was PT0S");
    assertThatThrownBy(() -> IdempotencyConfig.custom().lease(Duration.ofSeconds(-1)))
        .hasMessageContaining("lease must be positive");
    assertThatThrownBy(() -> IdempotencyConfig.custom().settleTimeout(Duration.ofMillis(-1)))
        .hasMessageContaining("settleTimeout must not be negative");
    assertThatThrownBy(
            () ->
                IdempotencyConfig.custom()
                    .settleTimeout(Duration.ofMillis(10))
                    .pollInterval(Duration.ofMillis(50))
                    .build())
        .hasMessageContaining("pollInterval (PT0.05S) must not exceed settleTimeout (PT0.01S)");
    IdempotencyConfig failFast = IdempotencyConfig.custom().settleTimeout(Duration.ZERO).build();
    assertThat(failFast.settleTimeout()).isZero();
    assertThat(failFast.toBuilder().build().lease()).isEqualTo(IdempotencyConfig.DEFAULT_LEASE);
  }

  @Test
  void retrySettingsRejectBadValuesAndCombinations() {
    assertThatThrownBy(() -> RetryConfig.custom().maxAttempts(0))
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> RetryConfig.custom().maxDeliveries(0))
        .hasMessageContaining("maxDeliveries");
    assertThatThrownBy(() -> RetryConfig.custom().jitter(1.0)).hasMessageContaining("jitter");
    assertThatThrownBy(() -> RetryConfig.custom().multiplier(0.5))
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> RetryConfig.custom().multiplier(Double.NaN))
        .hasMessageContaining("multiplier");
    assertThatThrownBy(
            () ->
                RetryConfig.custom().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .hasMessageContaining("maxBackoff (PT1S) must not be below initialBackoff (PT2S)");
    assertThatThrownBy(
            () ->
                RetryConfig.custom()
                    .redeliveryBackoff(Duration.ofMinutes(2), Duration.ofMinutes(1))
                    .build())
        .hasMessageContaining("maxRedeliveryBackoff");
  }

  @Test
  void stepNamesAndClaimRequestsAreValidated() {
    assertThatThrownBy(() -> Step.of("a:b", String.class, x -> "x"))
        .hasMessageContaining("step name");
    assertThatThrownBy(() -> Step.of("a b", String.class, x -> "x"))
        .hasMessageContaining("step name");
    assertThatThrownBy(() -> new ClaimRequest("k", null, Duration.ZERO))
        .hasMessageContaining("lease must be positive");
  }

  @Test
  void messagesRejectBadDeliveryAttemptsAndNeverPrintPayloads() {
    assertThatThrownBy(() -> Message.builder("m", MessageSource.of("sqs", "q")).deliveryAttempt(0))
        .hasMessageContaining("deliveryAttempt");
    Message m =
        Message.builder("m-1", new MessageSource("kafka", "orders", 2, 77))
            .payload("secret-card-number".getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .build();
    assertThat(m.toString()).isEqualTo("Message[kafka:orders-2@77, id=m-1, attempt=1]");
  }
}
