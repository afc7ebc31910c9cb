package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.testkit.KafkaBrokerExtension;
import dev.siglo.testkit.KafkaTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fatal errors stop the consumer through its termination future, never as a silent dead thread. */
class SigloKafkaConsumerFatalIT {
  @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

  @Test
  void aTopicThatDoesNotExistStopsTheConsumerWithAClearError() throws Exception {
    try (SigloKafkaConsumer<String> c =
        SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
            .bootstrapServers(KAFKA.broker().bootstrapServers())
            .groupId("g-missing")
            .topics("no-such-topic")
            .topicCheckTimeout(Duration.ofSeconds(2))
            .build()) {
      CompletableFuture<Void> done = c.start();
      Throwable failure = failureOf(done);
      assertThat(failure)
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining("[no-such-topic] do not exist");
      assertThat(c.isRunning()).isFalse();
    }
  }

  @Test
  void aMissingDeadLetterTopicStopsTheConsumerAtStartNamingIt() throws Exception {
    String topic = "orders-without-dlt-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic);
    try (SigloKafkaConsumer<String> c =
        SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
            .bootstrapServers(KAFKA.broker().bootstrapServers())
            .groupId("g-no-dlt")
            .topics(topic)
            .build()) {
      Throwable failure = failureOf(c.start());

      assertThat(failure)
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining("dead-letter topic(s) [" + topic + "-dlt] do not exist")
          .hasMessageContaining("createDeadLetterTopics(true)");
    }
  }

  @Test
  void missingDeadLetterTopicsAreCreatedAtStartWhenAsked() throws Exception {
    String topic = "orders-create-dlt-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic);
    try (SigloKafkaConsumer<String> c =
            SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                .bootstrapServers(KAFKA.broker().bootstrapServers())
                .groupId("g-create-dlt")
                .topics(topic)
                .createDeadLetterTopics(true)
                .build();
        org.apache.kafka.clients.admin.Admin admin =
            org.apache.kafka.clients.admin.Admin.create(
                java.util.Map.of("bootstrap.servers", KAFKA.broker().bootstrapServers()))) {
      c.start();

      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.listTopics().names().get().contains(topic + "-dlt"));
      assertThat(c.isRunning()).isTrue();
    }
  }

  /** A store whose credentials are rejected: every call is a configuration error. */
  static final class MisconfiguredStore implements IdempotencyStore {
    final AtomicInteger calls = new AtomicInteger();

    private SigloConfigurationException rejected() {
      calls.incrementAndGet();
      return new SigloConfigurationException("store rejected the credentials of user 'siglo'");
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
      throw rejected();
    }

    @Override
    public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {
      throw rejected();
    }

    @Override
    public void fail(String key, ClaimToken token) {
      throw rejected();
    }

    @Override
    public Instant renewLease(String key, ClaimToken token, Duration lease) {
      throw rejected();
    }

    @Override
    public Optional<Outcome> getResult(String key) {
      throw rejected();
    }

    @Override
    public void clear() {}
  }

  @Test
  void aBrokenStoreConfigurationStopsTheConsumerInsteadOfRetryingForever() throws Exception {
    String topic = "fatal-store-" + System.nanoTime();
    KAFKA.broker().createTopics(1, topic);
    try (KafkaTestSupport kafka = new KafkaTestSupport(KAFKA.broker())) {
      kafka.send(topic, 0, null, "order-1", "v");
      kafka.flush();
    }
    AtomicInteger handled = new AtomicInteger();
    MisconfiguredStore store = new MisconfiguredStore();
    try (SigloKafkaConsumer<String> c =
        SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> handled.incrementAndGet())
            .bootstrapServers(KAFKA.broker().bootstrapServers())
            .groupId("g-fatal-store")
            .topics(topic)
            .createDeadLetterTopics(true)
            .store(store)
            .build()) {
      Throwable failure = failureOf(c.start());
      assertThat(failure)
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageContaining("rejected the credentials");
    }
    assertThat(handled).as("no handler ran without a claim").hasValue(0);
  }

  private static Throwable failureOf(CompletableFuture<Void> done) throws Exception {
    try {
      done.get(60, TimeUnit.SECONDS);
      throw new AssertionError("the consumer stopped without an error");
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void closingWhileWaitingForATopicStopsCleanly() throws Exception {
    SigloKafkaConsumer<String> c =
        SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
            .bootstrapServers(KAFKA.broker().bootstrapServers())
            .groupId("g-closing")
            .topics("not-yet-created")
            .topicCheckTimeout(Duration.ofMinutes(5))
            .build();
    CompletableFuture<Void> done = c.start();
    c.close(Duration.ofSeconds(5));
    done.get(30, TimeUnit.SECONDS);
    assertThat(done).isCompletedWithValue(null);
  }
}
