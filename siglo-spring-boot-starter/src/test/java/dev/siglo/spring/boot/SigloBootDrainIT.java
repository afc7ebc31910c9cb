package dev.siglo.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.PostgresServer;
import dev.siglo.testkit.SharedServers;
import dev.siglo.testkit.SqsServer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Closing the context while handlers run drains them: the close waits for the running handlers
 * (released only once the close began), and when it returns their work is durable, every offset
 * committed to the end of the topic, every message deleted from the queue. Boot's default shutdown
 * phase, Siglo's default drain, the PostgreSQL store on Boot's DataSource.
 */
class SigloBootDrainIT {
  private static final int IN_FLIGHT = 6;
  private static KafkaBroker kafka;
  private static SqsServer sqs;
  private static PostgresServer postgres;

  @BeforeAll
  static void servers() {
    kafka = SharedServers.kafka();
    sqs = SharedServers.sqs();
    postgres = SharedServers.postgres();
  }

  @Test
  void closingTheContextDrainsRunningKafkaHandlersAndCommitsTheirOffsets() throws Exception {
    String topic = "drain-" + System.nanoTime();
    kafka.createTopics(2, topic, topic + "-dlt");
    try (KafkaTestSupport k = new KafkaTestSupport(kafka)) {
      drained(
          new SpringApplicationBuilder(BootTestApp.class)
              .properties(
                  "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                  "siglo.store.type=postgres",
                  "siglo.store.postgres.table=drain_kafka",
                  "spring.datasource.url=" + postgres.jdbcUrl(),
                  "siglo.consumers.payments.topics=" + topic,
                  "siglo.consumers.payments.group-id=" + topic),
          () -> {
            for (int i = 0; i < IN_FLIGHT; i++) {
              k.send(topic, null, "d-" + i, "d-" + i, SigloKafkaBootIT.payment("d-" + i, 1));
            }
            k.flush();
          });
      Map<?, Long> end = k.endOffsets(topic, 2);
      assertThat(k.committed(topic))
          .as("committed to the end when the close returned")
          .isEqualTo(end);
    }
  }

  @Test
  void closingTheContextDrainsRunningSqsHandlersAndDeletesTheirMessages() throws Exception {
    String queue = "drain-" + System.nanoTime();
    String url = sqs.createQueue(queue, Map.of());
    try (SqsClient client = sqs.client()) {
      drained(
          new SpringApplicationBuilder(BootTestApp.class)
              .properties(
                  "siglo.store.type=postgres",
                  "siglo.store.postgres.table=drain_sqs",
                  "spring.datasource.url=" + postgres.jdbcUrl(),
                  "siglo.sqs.endpoint=" + sqs.endpoint(),
                  "siglo.sqs.region=us-east-1",
                  "spring.cloud.aws.credentials.access-key=test",
                  "spring.cloud.aws.credentials.secret-key=test",
                  "siglo.consumers.payments.queue=" + queue),
          () -> {
            for (int i = 0; i < IN_FLIGHT; i++) {
              SqsServer.sendWithKey(client, url, "d-" + i, SigloKafkaBootIT.payment("d-" + i, 1));
            }
          });
      assertThat(SqsServer.messagesIn(client, url))
          .as("every message deleted when the close returned")
          .isZero();
    }
  }

  /**
   * Starts the application with its handlers held, sends, waits until {@link #IN_FLIGHT} run,
   * closes the context on another thread, releases the handlers once the close began, and returns
   * when the close did; every handler then completed its effect once.
   */
  private static void drained(SpringApplicationBuilder app, Runnable send) throws Exception {
    CountDownLatch closing = new CountDownLatch(1);
    app.listeners(
        event -> {
          if (event instanceof ContextClosedEvent) {
            closing.countDown();
          }
        });
    ConfigurableApplicationContext ctx = app.run();
    TestHandlers.CountingPayments handler = ctx.getBean(TestHandlers.CountingPayments.class);
    handler.holdAll();
    send.run();
    await().atMost(Duration.ofSeconds(60)).until(() -> handler.started.get() == IN_FLIGHT);
    SigloConsumer consumer = ctx.getBean(SigloConsumers.class).consumer("payments");
    Thread closer = new Thread(ctx::close, "closer");
    closer.start();
    assertThat(closing.await(30, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> consumer.state() == SigloConsumer.State.STOPPING);
    // the behaviour is a wait: the close must not return while the handlers are held
    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(closer::isAlive);
    handler.hold.countDown();
    closer.join(TimeUnit.SECONDS.toMillis(60));
    assertThat(closer.isAlive()).isFalse();
    assertThat(handler.effects).hasSize(IN_FLIGHT);
    handler.effects.values().forEach(n -> assertThat(n.get()).isEqualTo(1));
  }
}
