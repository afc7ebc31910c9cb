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

  private static SigloSqsConsumer.Builder<String> batchBuilder() {
    return SigloSqsConsumer.batchBuilder(
            PayloadDecoder.utf8(), (java.util.List<dev.siglo.consumer.BatchItem<String>> b) -> null)
        .client(
            software.amazon.awssdk.services.sqs.SqsClient.builder()
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(
                    software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider.create())
                .endpointOverride(java.net.URI.create("http://127.0.0.1:9"))
                .build())
        .queueUrl("http://127.0.0.1:9/000000000000/orders");
  }

  @Test
  void anExplicitMaxInFlightBelowTheBatchSizeIsRejectedNamingBoth() {
    assertThatThrownBy(() -> batchBuilder().batchSize(100).threads(1, 4, 64).build())
        .isInstanceOf(dev.siglo.consumer.error.SigloConfigurationException.class)
        .hasMessageContaining("maxInFlight (64) must be at least batchSize (100)");
    assertThatCode(() -> batchBuilder().batchSize(64).threads(1, 4, 64).build())
        .doesNotThrowAnyException();
    assertThatCode(() -> batchBuilder().batchSize(500).build())
        .as("without threads(...), maxInFlight holds two batches")
        .doesNotThrowAnyException();
  }

  @Test
  void batchSettingsAreRefusedWithoutABatchHandlerAndBadValuesAreNamed() {
    assertThatThrownBy(() -> builder().batchSize(10))
        .isInstanceOf(dev.siglo.consumer.error.SigloConfigurationException.class)
        .hasMessageContaining("batchSize applies to a batch handler only");
    assertThatThrownBy(() -> builder().batchLinger(java.time.Duration.ofMillis(5)))
        .hasMessageContaining("batchLinger applies to a batch handler only");
    assertThatThrownBy(() -> batchBuilder().batchSize(0)).hasMessageContaining("batchSize");
    assertThatThrownBy(() -> batchBuilder().batchLinger(java.time.Duration.ofMillis(-1)))
        .hasMessageContaining("batchLinger");
  }
}
