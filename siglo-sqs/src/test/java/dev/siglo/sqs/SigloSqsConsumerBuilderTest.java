package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.PayloadDecoder;
import org.junit.jupiter.api.Test;

class SigloSqsConsumerBuilderTest {
  private static SigloSqsConsumer.Builder<String> builder() {
    return SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null);
  }

  @Test
  void fewerMessagesInFlightThanWorkersIsRejectedWithTheReasonNotRaisedSilently() {
    assertThatThrownBy(() -> builder().threads(1, 32, 16))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxInFlight (16) must be at least concurrency (32)");
    assertThatCode(() -> builder().threads(1, 32, 32)).doesNotThrowAnyException();
  }

  @Test
  void theDefaultsHoldMoreMessagesThanTheyHaveWorkers() {
    assertThatCode(
            () ->
                builder()
                    .threads(
                        SigloSqsConsumer.DEFAULT_POLLERS,
                        SigloSqsConsumer.DEFAULT_CONCURRENCY,
                        SigloSqsConsumer.DEFAULT_MAX_IN_FLIGHT))
        .doesNotThrowAnyException();
  }
}
