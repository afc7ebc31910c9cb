package dev.siglo.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.error.SigloConfigurationException;
import org.junit.jupiter.api.Test;

class SigloKafkaShareConsumerBuilderTest {
  private static SigloKafkaShareConsumer.Builder<String> valid() {
    return SigloKafkaShareConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
        .bootstrapServers("127.0.0.1:9092")
        .groupId("g")
        .topics("orders");
  }

  @Test
  void theSettingsSigloManagesCannotBeSet() {
    for (String managed :
        new String[] {
          "share.acknowledgement.mode", "value.deserializer", "max.poll.records", "group.id"
        }) {
      assertThatThrownBy(() -> valid().property(managed, "x").build())
          .isInstanceOf(SigloConfigurationException.class)
          .hasMessageStartingWith(managed + " cannot be set");
    }
    assertThat(valid().property("share.acquire.mode", "batch_optimized").build()).isNotNull();
  }

  @Test
  void requiredSettingsAndBadValuesAreNamed() {
    assertThatThrownBy(
            () ->
                SigloKafkaShareConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .groupId("g")
                    .topics("t")
                    .build())
        .hasMessage("bootstrapServers is required");
    assertThatThrownBy(
            () ->
                SigloKafkaShareConsumer.builder(PayloadDecoder.utf8(), (v, ctx) -> null)
                    .bootstrapServers("127.0.0.1:9092")
                    .groupId("g")
                    .build())
        .hasMessage("topics are required");
    assertThatThrownBy(() -> valid().concurrency(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> valid().maxInFlight(0)).hasMessageContaining("maxInFlight");
    assertThatThrownBy(() -> valid().autoOffsetReset(" ")).hasMessageContaining("autoOffsetReset");
  }
}
