package dev.siglo.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PayloadDecoderTest {
  private static Message json(String payload) {
    return Message.builder("m-1", MessageSource.of("test", "orders"))
        .payload(payload.getBytes(StandardCharsets.UTF_8))
        .build();
  }

  @Test
  void aTypeReferenceDecodesGenericJsonWithoutACast() throws Exception {
    PayloadDecoder<Map<String, List<Integer>>> decoder =
        PayloadDecoder.json(new TypeReference<Map<String, List<Integer>>>() {});

    Map<String, List<Integer>> value = decoder.decode(json("{\"amounts\":[1,2,3]}"));

    assertThat(value).containsEntry("amounts", List.of(1, 2, 3));
  }

  @Test
  void aTypeReferenceDecoderRejectsJsonOfAnotherShape() {
    PayloadDecoder<Map<String, Object>> decoder =
        PayloadDecoder.json(new TypeReference<Map<String, Object>>() {});

    assertThatThrownBy(() -> decoder.decode(json("[1,2]"))).isInstanceOf(Exception.class);
  }
}
