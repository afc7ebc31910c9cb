package dev.siglo.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.SharedServers;
import dev.siglo.testkit.SqsServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * A Boot application on ElasticMQ with the real AWS SDK client (the application's own {@code
 * SqsClient} bean), its store PostgreSQL on Boot's {@code DataSource}: duplicates give one effect,
 * a decline is cached, poison goes to Siglo's dead-letter queue with its reason, the queue ends
 * empty, and the health endpoint reports the consumer.
 */
@SpringBootTest(
    classes = {BootTestApp.class, SigloSqsBootIT.Client.class},
    properties = {
      "siglo.store.type=postgres",
      "siglo.store.postgres.table=boot_sqs",
      "siglo.consumers.payments.queue=" + SigloSqsBootIT.QUEUE,
      "siglo.consumers.payments.dead-letter-queue=" + SigloSqsBootIT.QUEUE + "-dlq",
      "management.endpoint.health.show-details=always"
    })
class SigloSqsBootIT {
  static final String QUEUE = "boot-payments";
  private static final SqsServer SQS = SharedServers.sqs();
  private static final PostgresServer POSTGRES = SharedServers.postgres();

  @Autowired TestHandlers.CountingPayments handler;
  @Autowired HealthEndpoint health;
  @Autowired SqsClient sqs;
  @Autowired dev.siglo.consumer.store.IdempotencyStore store;

  /** The application's own SQS client, which the starter uses. */
  static class Client {
    @Bean(destroyMethod = "close")
    SqsClient sqsClient() {
      return SQS.client();
    }
  }

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    SQS.createQueue(QUEUE, Map.of());
    SQS.createQueue(QUEUE + "-dlq", Map.of());
    registry.add("spring.datasource.url", POSTGRES::jdbcUrl);
  }

  @Test
  void duplicatesGiveOneEffectADeclineIsCachedAndPoisonIsDeadLettered() {
    String url = sqs.getQueueUrl(r -> r.queueName(QUEUE)).queueUrl();
    String dlq = sqs.getQueueUrl(r -> r.queueName(QUEUE + "-dlq")).queueUrl();
    for (int copy = 0; copy < 3; copy++) {
      for (int i = 0; i < 10; i++) {
        SqsServer.sendWithKey(sqs, url, "s-" + i, SigloKafkaBootIT.payment("s-" + i, 10 + i));
      }
    }
    SqsServer.sendWithKey(sqs, url, "declined", SigloKafkaBootIT.payment("declined", -1));
    SqsServer.sendWithKey(sqs, url, "poison", "{not json");
    awaitEmpty(url);
    SqsServer.sendWithKey(sqs, url, "declined", SigloKafkaBootIT.payment("declined", -1));
    awaitEmpty(url);

    for (int i = 0; i < 10; i++) {
      assertThat(count(handler.effects, "s-" + i)).as("effects of s-%d", i).isEqualTo(1);
    }
    assertThat(count(handler.runs, "declined")).as("the decline ran once").isEqualTo(1);
    assertThat(count(handler.effects, "declined")).isZero();
    List<Message> dead = receiveAll(dlq, 1);
    assertThat(dead).hasSize(1);
    assertThat(
            dead.get(0)
                .messageAttributes()
                .get(DeadLetters.SQS_ATTRIBUTE_PREFIX + "reason")
                .stringValue())
        .isEqualTo(DeadLetterReason.POISON_PAYLOAD.name());
    assertThat(dead.get(0).body()).isEqualTo("{not json");
    assertThat(store).isInstanceOf(PostgresIdempotencyStore.class);
  }

  @Test
  void theHealthEndpointReportsTheRunningConsumer() {
    String url = sqs.getQueueUrl(r -> r.queueName(QUEUE)).queueUrl();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              var payments = (IndicatedHealthDescriptor) health.healthForPath("siglo", "payments");
              assertThat(payments.getStatus().getCode()).isEqualTo("UP");
              assertThat(payments.getDetails())
                  .containsEntry("broker", "sqs")
                  .containsEntry("destination", url)
                  .containsEntry("running", true)
                  .containsEntry("store", "reachable");
            });
  }

  private void awaitEmpty(String url) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> SqsServer.messagesIn(sqs, url) == 0);
  }

  private List<Message> receiveAll(String url, int expected) {
    List<Message> out = new ArrayList<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              out.addAll(
                  sqs.receiveMessage(
                          r ->
                              r.queueUrl(url)
                                  .maxNumberOfMessages(10)
                                  .waitTimeSeconds(1)
                                  .messageAttributeNames("All")
                                  .messageSystemAttributeNames(
                                      MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                      .messages());
              return out.size() >= expected;
            });
    return out;
  }

  private static int count(Map<String, AtomicInteger> counts, String key) {
    AtomicInteger n = counts.get(key);
    return n == null ? 0 : n.get();
  }
}
