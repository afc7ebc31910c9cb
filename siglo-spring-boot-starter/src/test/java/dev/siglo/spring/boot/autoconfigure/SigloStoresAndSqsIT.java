package dev.siglo.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimStatus;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.spring.boot.SigloConsumers;
import dev.siglo.spring.boot.SigloProperties;
import dev.siglo.spring.boot.TestHandlers;
import dev.siglo.store.postgres.PostgresIdempotencyStore;
import dev.siglo.store.redis.RedisIdempotencyStore;
import dev.siglo.testkit.PostgresServerExtension;
import dev.siglo.testkit.RedisServerExtension;
import dev.siglo.testkit.SqsServerExtension;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The branches that need a real server: the PostgreSQL store on Boot's DataSource, the Redis store
 * from Boot's {@code spring.data.redis.*} and from Siglo's own URL, and SQS consumers on Siglo's
 * own client and on the application's {@code SqsClient} bean, with a missing queue or dead-letter
 * queue failing the start-up.
 */
class SigloStoresAndSqsIT {
  @RegisterExtension
  static final PostgresServerExtension POSTGRES = new PostgresServerExtension(false);

  @RegisterExtension
  static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();

  @RegisterExtension static final SqsServerExtension SQS = new SqsServerExtension();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DataSourceAutoConfiguration.class,
                  SigloStoreAutoConfiguration.class,
                  SigloAutoConfiguration.class))
          .withPropertyValues("siglo.auto-startup=false");

  @Test
  void thePostgresStoreRunsOnTheApplicationsDataSourceAndLeavesItOpen() {
    runner
        .withPropertyValues(
            "spring.datasource.url=" + POSTGRES.server().jdbcUrl(),
            "siglo.store.type=postgres",
            "siglo.store.postgres.table=boot_records")
        .run(
            ctx -> {
              IdempotencyStore store = ctx.getBean(IdempotencyStore.class);
              assertThat(store).isInstanceOf(PostgresIdempotencyStore.class);
              assertThat(ctx).hasSingleBean(PostgresIdempotencyStore.class);
              assertClaims(store);
              store.close();
              try (var c = ctx.getBean(DataSource.class).getConnection();
                  var rs = c.createStatement().executeQuery("SELECT count(*) FROM boot_records")) {
                rs.next();
                assertThat(rs.getInt(1)).as("the DataSource outlives the store").isPositive();
              }
            });
  }

  @Test
  void theRedisStoreTakesBootsConnectionOrItsOwnUrl() {
    runner
        .withPropertyValues(
            "siglo.store.type=redis",
            "spring.data.redis.host=" + REDIS.server().host(),
            "spring.data.redis.port=" + REDIS.server().port())
        .run(
            ctx -> {
              assertThat(ctx.getBean(IdempotencyStore.class))
                  .isInstanceOf(RedisIdempotencyStore.class);
              assertClaims(ctx.getBean(IdempotencyStore.class));
            });
    runner
        .withPropertyValues(
            "siglo.store.type=redis",
            "siglo.store.redis.url=redis://" + REDIS.server().host() + ":" + REDIS.server().port(),
            "siglo.store.redis.key-prefix=boot:",
            "spring.data.redis.port=1")
        .run(ctx -> assertClaims(ctx.getBean(IdempotencyStore.class)));
    runner
        .withPropertyValues("siglo.store.type=redis", "siglo.store.redis.url=http://x:1")
        .run(
            ctx ->
                assertThat(analysis(ctx.getStartupFailure()).getDescription())
                    .contains("'siglo.store.redis.url' is wrong: the Redis URL must look like"));
  }

  @Test
  void anSqsConsumerLooksItsQueuesUpOnSiglosOwnClientOrTheApplicationsBean() {
    String queue = "boot-orders-" + System.nanoTime();
    String url = SQS.server().createQueue(queue, Map.of());
    String dlq = SQS.server().createQueue(queue + "-dlq", Map.of());
    ApplicationContextRunner sqs =
        runner
            .withBean("payments", TestHandlers.CountingPayments.class)
            .withSystemProperties("aws.accessKeyId=test", "aws.secretAccessKey=test")
            .withPropertyValues(
                "siglo.sqs.endpoint=" + SQS.server().endpoint(),
                "siglo.sqs.region=us-east-1",
                "siglo.consumers.payments.queue=" + queue);
    sqs.withPropertyValues("siglo.consumers.payments.dead-letter-queue=" + dlq)
        .run(
            ctx -> {
              var c = ctx.getBean(SigloConsumers.class).consumer("payments");
              assertThat(c.broker()).isEqualTo(SigloProperties.Broker.SQS);
              assertThat(c.destination()).isEqualTo(url);
            });
    try (SqsClient own = SQS.server().client()) {
      runner
          .withBean("payments", TestHandlers.CountingPayments.class)
          .withBean(SqsClient.class, () -> own)
          .withPropertyValues("siglo.consumers.payments.queue=" + url)
          .run(
              ctx ->
                  assertThat(ctx.getBean(SigloConsumers.class).consumer("payments").destination())
                      .isEqualTo(url));
    }
    sqs.withPropertyValues("siglo.consumers.payments.queue=no-such-queue")
        .run(
            ctx ->
                assertThat(analysis(ctx.getStartupFailure()).getDescription())
                    .isEqualTo(
                        "Siglo cannot start: the property 'siglo.consumers.payments.queue' is"
                            + " wrong: the queue 'no-such-queue' does not exist"));
    sqs.withPropertyValues("siglo.consumers.payments.wait-time=25s")
        .run(
            ctx ->
                assertThat(analysis(ctx.getStartupFailure()).getDescription())
                    .startsWith(
                        "Siglo cannot start: the property 'siglo.consumers.payments.wait-time' is"
                            + " wrong: "));
    sqs.withPropertyValues("siglo.consumers.payments.dead-letter-queue=" + url + "-missing")
        .run(
            ctx ->
                assertThat(analysis(ctx.getStartupFailure()).getDescription())
                    .startsWith(
                        "Siglo cannot start: the property"
                            + " 'siglo.consumers.payments.dead-letter-queue' is wrong: the queue '"
                            + url
                            + "-missing' does not exist"));
  }

  private static FailureAnalysis analysis(Throwable failure) {
    FailureAnalysis a = new SigloFailureAnalyzer().analyze(failure);
    assertThat(a).as("a Siglo property failure, not %s", failure).isNotNull();
    return a;
  }

  private static void assertClaims(IdempotencyStore store) {
    store.checkConnection();
    String key = "boot-" + System.nanoTime();
    assertThat(store.claim(new ClaimRequest(key, "fp", Duration.ofSeconds(30))).status())
        .isEqualTo(ClaimStatus.CLAIMED);
    assertThat(store.claim(new ClaimRequest(key, "fp", Duration.ofSeconds(30))).status())
        .isEqualTo(ClaimStatus.IN_PROGRESS);
  }
}
