package dev.siglo.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.spring.boot.SigloConsumerCustomizer;
import dev.siglo.spring.boot.SigloConsumers;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.TestHandlers;
import dev.siglo.store.redis.RedisIdempotencyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each branch of the auto-configuration, in a context that is never started against a server:
 * consumers are built with {@code siglo.auto-startup=false} (a Kafka consumer connects only when it
 * starts), and every invalid property fails the start-up with the failure analysis naming it.
 */
class SigloAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SigloStoreAutoConfiguration.class,
                  SigloAutoConfiguration.class,
                  SigloActuatorAutoConfiguration.class))
          .withPropertyValues("siglo.auto-startup=false");

  private final ApplicationContextRunner kafka =
      runner
          .withBean("payments", TestHandlers.CountingPayments.class)
          .withPropertyValues(
              "siglo.consumers.payments.topics=orders",
              "siglo.consumers.payments.bootstrap-servers=127.0.0.1:9");

  @Test
  void withNothingConfiguredThereIsAnInMemoryStoreAndNoConsumer() {
    runner.run(
        ctx -> {
          assertThat(ctx).hasSingleBean(IdempotencyStore.class);
          assertThat(ctx.getBean(IdempotencyStore.class))
              .isInstanceOf(InMemoryIdempotencyStore.class);
          assertThat(ctx.getBean(SigloConsumers.class).consumers()).isEmpty();
        });
  }

  @Test
  void sigloEnabledFalseSwitchesTheWholeStarterOff() {
    kafka
        .withPropertyValues("siglo.enabled=false")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx).doesNotHaveBean(SigloConsumers.class);
              assertThat(ctx).doesNotHaveBean(IdempotencyStore.class);
              assertThat(ctx).doesNotHaveBean("sigloHealthContributor");
            });
  }

  @Test
  void aKafkaConsumerIsBuiltFromItsPropertiesWithTheOnlyHandlerAndNotStarted() {
    kafka.run(
        ctx -> {
          SigloConsumers consumers = ctx.getBean(SigloConsumers.class);
          assertThat(consumers.consumers()).hasSize(1);
          var c = consumers.consumer("payments");
          assertThat(c.broker()).isEqualTo(SigloProperties.Broker.KAFKA);
          assertThat(c.destination()).isEqualTo("orders");
          assertThat(c.isRunning()).isFalse();
          assertThat(c.store()).isSameAs(ctx.getBean(IdempotencyStore.class));
          assertThat(consumers.isAutoStartup()).isFalse();
          assertThat(consumers.getPhase()).isEqualTo(SigloConsumers.PHASE);
        });
  }

  @Test
  void severalConsumersEachWithItsNamedHandler() {
    runner
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withBean("audit", TestHandlers.Strings.class)
        .withPropertyValues(
            "siglo.consumers.payments.topics=orders",
            "siglo.consumers.payments.handler=payments",
            "siglo.consumers.payments.bootstrap-servers=127.0.0.1:9",
            "siglo.consumers.audit.topics=audit,audit-eu",
            "siglo.consumers.audit.handler=audit",
            "siglo.consumers.audit.bootstrap-servers=127.0.0.1:9")
        .run(
            ctx ->
                assertThat(ctx.getBean(SigloConsumers.class).consumers())
                    .extracting(c -> c.name() + "=" + c.destination())
                    .containsExactly("payments=orders", "audit=audit,audit-eu"));
  }

  @Test
  void aConsumerStartsFromSigloDefaultsAndOverridesThem() {
    runner
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues(
            "siglo.defaults.bootstrap-servers=127.0.0.1:9",
            "siglo.defaults.topics=shared",
            "siglo.defaults.ordering=random",
            "siglo.consumers.payments.topics=orders",
            "siglo.consumers.audit.handler=payments")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.ordering",
                    "'RANDOM' must be KEY, PARTITION or UNORDERED"));
    runner
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues(
            "siglo.defaults.bootstrap-servers=127.0.0.1:9",
            "siglo.defaults.topics=shared",
            "siglo.consumers.payments.topics=orders",
            "siglo.consumers.audit.handler=payments")
        .run(
            ctx ->
                assertThat(ctx.getBean(SigloConsumers.class).consumers())
                    .extracting(c -> c.name() + "=" + c.destination())
                    .containsExactly("payments=orders", "audit=shared"));
  }

  @Test
  void consumerNamesMayHaveCapitalsAndDashes() {
    runner
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues(
            "siglo.defaults.bootstrap-servers=127.0.0.1:9",
            "siglo.consumers.PaymentsEU.topics=eu",
            "siglo.consumers.payments-us.topics=us",
            "siglo.consumers.payments-us.concurrency=2")
        .run(
            ctx ->
                assertThat(ctx.getBean(SigloConsumers.class).consumers())
                    .extracting(c -> c.name() + "=" + c.destination())
                    .containsExactlyInAnyOrder("PaymentsEU=eu", "payments-us=us"));
  }

  @Test
  void theApplicationsOwnBeansWin() {
    InMemoryIdempotencyStore own = InMemoryIdempotencyStore.of();
    SigloConsumers ownConsumers = new SigloConsumers(List.of(), false, Duration.ofSeconds(1));
    HealthIndicator ownHealth =
        () -> org.springframework.boot.health.contributor.Health.up().build();
    kafka
        .withBean(IdempotencyStore.class, () -> own)
        .withBean(SigloConsumers.class, () -> ownConsumers)
        .withBean("sigloHealthContributor", HealthIndicator.class, () -> ownHealth)
        .run(
            ctx -> {
              assertThat(ctx.getBean(IdempotencyStore.class)).isSameAs(own);
              assertThat(ctx.getBean(SigloConsumers.class)).isSameAs(ownConsumers);
              assertThat(ctx.getBean("sigloHealthContributor")).isSameAs(ownHealth);
            });
    kafka
        .withBean(IdempotencyStore.class, () -> own)
        .run(
            ctx ->
                assertThat(ctx.getBean(SigloConsumers.class).consumer("payments").store())
                    .isSameAs(own));
  }

  @Test
  void everyCustomizerRunsOnEveryConsumerInOrder() {
    List<String> seen = new CopyOnWriteArrayList<>();
    kafka
        .withBean(
            "first",
            SigloConsumerCustomizer.class,
            () ->
                (name, builder) ->
                    seen.add("first:" + name + ":" + builder.getClass().getSimpleName()))
        .run(ctx -> assertThat(seen).containsExactly("first:payments:Builder"));
  }

  @Test
  void theDrainIsThreeQuartersOfBootsShutdownPhase() {
    kafka.run(
        ctx ->
            assertThat(ctx.getBean(SigloConsumers.class).drainTimeout())
                .isEqualTo(Duration.ofMillis(22_500)));
    kafka
        .withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=8s")
        .run(
            ctx ->
                assertThat(ctx.getBean(SigloConsumers.class).drainTimeout())
                    .isEqualTo(Duration.ofSeconds(6)));
  }

  @Test
  void healthReportsEachConsumerOutOfServiceUntilItStartsAndInfoListsThem() {
    kafka.run(
        ctx -> {
          HealthContributor siglo = ctx.getBean("sigloHealthContributor", HealthContributor.class);
          assertThat(siglo).isInstanceOf(CompositeHealthContributor.class);
          HealthIndicator payments =
              (HealthIndicator) ((CompositeHealthContributor) siglo).getContributor("payments");
          var health = payments.health();
          assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
          assertThat(health.getDetails())
              .containsEntry("broker", "kafka")
              .containsEntry("destination", "orders")
              .containsEntry("running", false)
              .containsEntry("store", "reachable");

          Info.Builder info = new Info.Builder();
          ctx.getBean("sigloInfoContributor", InfoContributor.class).contribute(info);
          assertThat(info.build().getDetails().get("siglo").toString())
              .contains("InMemoryIdempotencyStore")
              .contains("payments={")
              .contains("destination=orders");
        });
    kafka
        .withPropertyValues("management.health.siglo.enabled=false")
        .run(ctx -> assertThat(ctx).doesNotHaveBean("sigloHealthContributor"));
  }

  @Test
  void withoutSpringKafkaTheConsumerNeedsItsOwnBootstrapServers() {
    runner
        .withClassLoader(new FilteredClassLoader(KafkaProperties.class))
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues("siglo.consumers.payments.topics=orders")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.bootstrap-servers",
                    "is required (or spring.kafka.bootstrap-servers)"));
  }

  @Test
  void withoutSpringKafkaSpringKafkaBootstrapServersIsStillRead() {
    runner
        .withClassLoader(new FilteredClassLoader(KafkaProperties.class))
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues(
            "siglo.consumers.payments.topics=orders", "spring.kafka.bootstrap-servers=127.0.0.1:9")
        .run(ctx -> assertThat(ctx).hasNotFailed());
    assertThat(
            KafkaRuntime.fromEnvironment(
                new org.springframework.mock.env.MockEnvironment()
                    .withProperty("spring.kafka.bootstrap-servers", "a:1,b:2")
                    .withProperty("spring.kafka.properties.security.protocol", "SSL")))
        .containsEntry("bootstrap.servers", List.of("a:1", "b:2"))
        .containsEntry("security.protocol", "SSL");
  }

  @Test
  void aKafkaConsumerWithoutSigloKafkaNamesTheModule() {
    kafka
        .withClassLoader(new FilteredClassLoader(SigloKafkaConsumer.class))
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.broker",
                    "a kafka consumer needs dev.siglo:siglo-kafka on the class path"));
  }

  @Test
  void aRedisStoreWithoutSigloStoreRedisNamesTheModule() {
    runner
        .withClassLoader(new FilteredClassLoader(RedisIdempotencyStore.class))
        .withPropertyValues("siglo.store.type=redis")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.store.type",
                    "redis needs dev.siglo:siglo-store-redis on the class path"));
  }

  @Test
  void aPostgresStoreWithoutADataSourceSaysSo() {
    runner
        .withPropertyValues("siglo.store.type=postgres")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.store.type",
                    "postgres needs the application's DataSource, and the context has none (set"
                        + " spring.datasource.url, or mark one @Primary)"));
  }

  @Test
  void aMissingHandlerBeanFailsTheStartUpNamingTheProperty() {
    runner
        .withPropertyValues(
            "siglo.consumers.payments.topics=orders",
            "siglo.consumers.payments.bootstrap-servers=127.0.0.1:9")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.handler",
                    "the context has no handler bean (MessageHandler, AsyncMessageHandler or"
                        + " BatchMessageHandler): declare one (@Component or @Bean)"));
    kafka
        .withPropertyValues("siglo.consumers.payments.handler=charges")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.handler",
                    "no bean named 'charges' (handler beans: [payments])"));
    kafka
        .withBean("audit", TestHandlers.Strings.class)
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.handler",
                    "the context has several handler beans [payments, audit]: name one of them"));
    kafka
        .withBean("notAHandler", String.class, () -> "x")
        .withPropertyValues("siglo.consumers.payments.handler=notAHandler")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.handler",
                    "the bean 'notAHandler' is not a handler: java.lang.String implements none of"
                        + " MessageHandler, AsyncMessageHandler, BatchMessageHandler"));
  }

  @Test
  void invalidPropertiesFailTheStartUpWithTheFailureAnalysisNamingEach() {
    String p = "siglo.consumers.payments.";
    invalid(
        p + "payload-type=java.lang.String",
        p + "payload-type",
        "java.lang.String cannot be given to "
            + TestHandlers.CountingPayments.class.getName()
            + ", which handles "
            + TestHandlers.Payment.class.getName());
    invalid(p + "ordering=random", p + "ordering", "'RANDOM' must be KEY, PARTITION or UNORDERED");
    invalid(p + "key-source=headr:x", p + "key-source", "'headr:x' is not a key source");
    invalid(p + "concurrency=0", p + "concurrency", "must be at least 1, was 0");
    invalid(p + "retry.max-attempts=0", p + "retry", "maxAttempts");
    invalid(p + "idempotency.lease=0s", p + "idempotency", "lease");
    invalid(
        p + "queue=orders",
        p + "queue",
        "a consumer reads topics (kafka) or a queue (sqs), not both");
    invalid(p + "broker=sqs", p + "broker", "sqs does not read topics");
    invalid(
        p + "classification.permanent=com.example.NoSuchException",
        p + "classification",
        "com.example.NoSuchException");
    invalid(
        p + "properties.enable.auto.commit=true",
        p + "properties",
        "enable.auto.commit=true is not allowed");
  }

  @Test
  void virtualWorkerThreadsFailTheStartUpNamingThePropertyBeforeJdk21() {
    org.junit.jupiter.api.Assumptions.assumeFalse(
        dev.siglo.consumer.WorkerThreads.virtualThreadsAvailable(), "this JVM has virtual threads");
    String p = "siglo.consumers.payments.";
    invalid(
        p + "worker-threads=virtual",
        p + "worker-threads",
        "virtual worker threads need JDK 21 or later");
  }

  @Test
  void aBatchHandlerBeanIsTheConsumersHandlerAndItsPayloadTypeComesFromItsTypeArgument() {
    runner
        .withBean("ledger", TestHandlers.BatchPayments.class)
        .withPropertyValues(
            "siglo.consumers.ledger.topics=orders",
            "siglo.consumers.ledger.bootstrap-servers=127.0.0.1:9",
            "siglo.consumers.ledger.batch-size=50",
            "siglo.consumers.ledger.batch-linger=20ms")
        .run(
            ctx -> {
              assertThat(ctx).hasNotFailed();
              assertThat(ctx.getBean(SigloConsumers.class).consumer("ledger").destination())
                  .isEqualTo("orders");
            });
    runner
        .withBean("ledger", TestHandlers.BatchPayments.class)
        .withPropertyValues(
            "siglo.consumers.ledger.topics=orders",
            "siglo.consumers.ledger.bootstrap-servers=127.0.0.1:9",
            "siglo.consumers.ledger.payload-type=java.lang.String")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.ledger.payload-type",
                    "java.lang.String cannot be given to "
                        + TestHandlers.BatchPayments.class.getName()
                        + ", which handles "
                        + TestHandlers.Payment.class.getName()));
  }

  @Test
  void aBatchOrAsyncSettingForAnotherShapeOfHandlerFailsTheStartUpNamingIt() {
    String p = "siglo.consumers.payments.";
    invalid(
        p + "batch-size=10",
        p + "batch-size",
        "applies to a BatchMessageHandler; the handler is "
            + TestHandlers.CountingPayments.class.getName()
            + " (MessageHandler)");
    invalid(p + "batch-linger=1s", p + "batch-linger", "applies to a BatchMessageHandler");
    invalid(p + "async-timeout=5s", p + "async-timeout", "applies to an AsyncMessageHandler");
    runner
        .withBean("ledger", TestHandlers.BatchPayments.class)
        .withPropertyValues(
            "siglo.consumers.ledger.topics=orders",
            "siglo.consumers.ledger.bootstrap-servers=127.0.0.1:9",
            "siglo.consumers.ledger.batch-size=0")
        .run(
            ctx ->
                assertFailure(
                    ctx, "siglo.consumers.ledger.batch-size", "must be at least 1, was 0"));
  }

  @Test
  void aConsumerWithNeitherTopicsNorQueueSaysWhatToSet() {
    runner
        .withBean("payments", TestHandlers.CountingPayments.class)
        .withPropertyValues("siglo.consumers.payments.concurrency=4")
        .run(
            ctx ->
                assertFailure(
                    ctx,
                    "siglo.consumers.payments.topics",
                    "set the topics (a Kafka consumer) or the queue (an SQS consumer)"));
  }

  private void invalid(String setting, String property, String problem) {
    kafka.withPropertyValues(setting).run(ctx -> assertFailure(ctx, property, problem));
  }

  private static void assertFailure(
      AssertableApplicationContext ctx, String property, String problem) {
    assertThat(ctx).hasFailed();
    FailureAnalysis analysis = new SigloFailureAnalyzer().analyze(ctx.getStartupFailure());
    assertThat(analysis)
        .as("a Siglo property failure, not: %s", ctx.getStartupFailure())
        .isNotNull();
    assertThat(analysis.getDescription())
        .startsWith("Siglo cannot start: the property '" + property + "' is wrong: ")
        .contains(problem);
    assertThat(analysis.getAction()).startsWith("Correct '" + property + "'");
  }
}
