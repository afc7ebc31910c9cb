package dev.siglo.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.testkit.SqsServerExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.SqsClient;

class SigloSqsConsumerFatalIT {
  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();

  @Test
  void aQueueThatDoesNotExistIsAClearErrorAtBuildOrStart() throws Exception {
    try (SqsClient client = SQS.server().client()) {
      assertThatThrownBy(
              () ->
                  SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                      .client(client)
                      .queueName("nope")
                      .build())
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining("queue 'nope' does not exist");
      String gone = SQS.server().createQueue("soon-gone", java.util.Map.of());
      client.deleteQueue(b -> b.queueUrl(gone));
      try (SigloSqsConsumer<String> c =
          SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
              .client(client)
              .queueUrl(gone)
              .waitTime(Duration.ofSeconds(1))
              .build()) {
        CompletableFuture<Void> done = c.start();
        assertThatThrownBy(() -> done.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(SigloConfigurationException.class)
            .hasMessageContaining("does not exist");
        assertThat(c.isRunning()).isFalse();
      }
    }
  }

  @Test
  void aDeadLetterQueueThatDoesNotExistStopsTheConsumerAtStartNamingIt() throws Exception {
    try (SqsClient client = SQS.server().client()) {
      String queue = SQS.server().createQueue("with-missing-dlq", java.util.Map.of());
      String dlq = SQS.server().createQueue("dlq-soon-gone", java.util.Map.of());
      client.deleteQueue(b -> b.queueUrl(dlq));
      AtomicInteger handled = new AtomicInteger();
      client.sendMessage(b -> b.queueUrl(queue).messageBody("work"));
      try (SigloSqsConsumer<String> c =
          SigloSqsConsumer.builder(
                  PayloadDecoder.utf8(),
                  (v, ctx) -> {
                    handled.incrementAndGet();
                    return null;
                  })
              .client(client)
              .queueUrl(queue)
              .deadLetterQueue(dlq, false)
              .waitTime(Duration.ofSeconds(1))
              .build()) {
        CompletableFuture<Void> done = c.start();

        assertThatThrownBy(() -> done.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(SigloConfigurationException.class)
            .hasMessageContaining("dead-letter queue " + dlq + " does not exist");
        assertThat(handled).as("nothing ran").hasValue(0);
      }
    }
  }

  @Test
  void theBuilderNamesWhatIsMissingOrWrong() {
    assertThatThrownBy(
            () ->
                SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .queueUrl("u")
                    .build())
        .hasMessageContaining("client is required");
    assertThatThrownBy(
            () ->
                SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .waitTime(Duration.ofSeconds(21)))
        .hasMessageContaining("waitTime");
    assertThatThrownBy(
            () ->
                SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null).threads(1, 0, 1))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(
            () ->
                SigloSqsConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .heartbeat(Duration.ofSeconds(30), 0.95))
        .hasMessageContaining("heartbeatFraction");
  }
}
