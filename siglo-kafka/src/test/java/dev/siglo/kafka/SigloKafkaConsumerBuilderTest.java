package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.SigloConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SigloKafkaConsumerBuilderTest {
  private static SigloKafkaConsumer.Builder<String> valid() {
    return SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
        .bootstrapServers("127.0.0.1:9092")
        .groupId("g")
        .topics("orders");
  }

  @Test
  void autoCommitCannotBeSwitchedOn() {
    assertThatThrownBy(() -> valid().property("enable.auto.commit", "true").build())
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("enable.auto.commit=true is not allowed");
    assertThat(valid().property("enable.auto.commit", false).build()).isNotNull();
  }

  @Test
  void deserializersCannotBeOverridden() {
    assertThatThrownBy(
            () ->
                valid()
                    .property(
                        "value.deserializer",
                        "org.apache.kafka.common.serialization.StringDeserializer")
                    .build())
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("PayloadDecoder");
  }

  @Test
  void requiredSettingsAndBadValuesAreNamed() {
    assertThatThrownBy(
            () ->
                SigloKafkaConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .groupId("g")
                    .topics("t")
                    .build())
        .hasMessageContaining("bootstrapServers is required");
    assertThatThrownBy(
            () -> valid().topicPattern(java.util.regex.Pattern.compile("orders.*")).build())
        .hasMessageContaining("either topics or a topicPattern");
    assertThatThrownBy(() -> valid().concurrency(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> valid().commitInterval(Duration.ZERO))
        .hasMessageContaining("commitInterval");
    assertThatThrownBy(() -> valid().groupId(" ")).hasMessageContaining("groupId");
  }

  @Test
  void anExplicitMaxBufferedBelowTheConcurrencyIsRejectedWithTheReasonNotRaisedSilently() {
    assertThatThrownBy(() -> valid().concurrency(64).maxBuffered(32).build())
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("maxBuffered (32) must be at least concurrency (64)");
    assertThat(valid().concurrency(64).maxBuffered(64).build()).isNotNull();
    assertThat(valid().concurrency(SigloKafkaConsumer.DEFAULT_MAX_BUFFERED * 2).build())
        .as("the unset default follows a larger concurrency")
        .isNotNull();
  }

  @Test
  void closingAConsumerThatNeverStartedIsHarmlessAndIdempotent() {
    SigloKafkaConsumer<String> c = valid().build();
    c.close(Duration.ofSeconds(1));
    c.close(Duration.ofSeconds(1));
    assertThat(c.termination()).isCompleted();
    assertThatThrownBy(c::start).isInstanceOf(IllegalStateException.class);
  }
}
