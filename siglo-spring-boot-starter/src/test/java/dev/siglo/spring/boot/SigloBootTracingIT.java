package dev.siglo.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.siglo.testkit.KafkaBroker;
import dev.siglo.testkit.KafkaTestSupport;
import dev.siglo.testkit.SharedServers;
import dev.siglo.testkit.TestTracing;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The application's {@code OpenTelemetry} bean traces its consumers: a message span per record,
 * parented on the producer's traceparent by default, and none with {@code tracing: off}.
 */
class SigloBootTracingIT {
  @Test
  void theApplicationsOpenTelemetryBeanTracesEachMessageUnlessTracingIsOff() throws Exception {
    KafkaBroker kafka = SharedServers.kafka();
    try (KafkaTestSupport k = new KafkaTestSupport(kafka);
        TestTracing tracing = new TestTracing()) {
      String traced = "traced-" + System.nanoTime();
      String untraced = "untraced-" + System.nanoTime();
      kafka.createTopics(1, traced, traced + "-dlt", untraced, untraced + "-dlt");
      try (ConfigurableApplicationContext app =
          new SpringApplicationBuilder(BootTestApp.class)
              .initializers(
                  ctx ->
                      ctx.getBeanFactory()
                          .registerSingleton("openTelemetry", tracing.openTelemetry()))
              .run(
                  "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                  "--siglo.consumers.traced.topics=" + traced,
                  "--siglo.consumers.untraced.topics=" + untraced,
                  "--siglo.consumers.untraced.tracing=off")) {
        assertThat(app.getBean(SigloConsumers.class).consumers()).hasSize(2);
        k.send(traced, null, "t-1", "t-1", SigloKafkaBootIT.payment("t-1", 5));
        k.send(untraced, null, "u-1", "u-1", SigloKafkaBootIT.payment("u-1", 5));
        k.flush();
        k.awaitCommittedToEnd("traced", traced, 1);
        k.awaitCommittedToEnd("untraced", untraced, 1);
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> tracing.named(traced + " process").size() == 1);
        SpanData span = tracing.named(traced + " process").get(0);
        assertThat(span.getAttributes().asMap().toString()).contains("processed");
        assertThat(tracing.named(untraced + " process")).isEmpty();
      }
    }
  }
}
