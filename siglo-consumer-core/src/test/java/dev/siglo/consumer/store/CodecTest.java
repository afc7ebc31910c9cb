package dev.siglo.consumer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CodecTest {
  private final JsonOutcomeCodec codec = JsonOutcomeCodec.of();

  @Test
  void outcomesRoundTripThroughJson() {
    Outcome success =
        new Outcome.Success("{\"receipt\":\"r-1\",\"lines\":[1,2],\"note\":\"\\\"q\\\" \u00e9\"}");
    Outcome declined =
        new Outcome.Declined(
            "com.acme.CardDeclined",
            "line1\nline2 \"quoted\" \ud83d\udcb3",
            Map.of("code", "05", "x", ""));
    assertThat(codec.decode(codec.encode(success))).isEqualTo(success);
    assertThat(codec.decode(codec.encode(declined))).isEqualTo(declined);
    assertThat(new String(codec.encode(declined), StandardCharsets.UTF_8))
        .startsWith("{\"kind\":\"declined\"");
  }

  @Test
  void aSuccessIsWrittenAsJacksonsGeneratorWritesItWhateverItsText() throws Exception {
    String[] results = {
      "null",
      "42",
      "\"text\"",
      "{\"a\":[1,2,{\"b\":\"\\\"q\\\"\"}]}",
      "\"tab\\tnl\\n\"",
      "\u0001\u001f control",
      "ünïcödé ✓ 𝄞",
      "back\\slash / slash",
      "del \u007f",
      ""
    };
    for (String result : results) {
      java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
      try (com.fasterxml.jackson.core.JsonGenerator g =
          new com.fasterxml.jackson.core.JsonFactory().createGenerator(expected)) {
        g.writeStartObject();
        g.writeStringField("kind", "success");
        g.writeStringField("result", result);
        g.writeEndObject();
      }
      byte[] encoded = JsonOutcomeCodec.of().encode(new Outcome.Success(result));
      assertThat(encoded).as(result).isEqualTo(expected.toByteArray());
      assertThat(JsonOutcomeCodec.of().decode(encoded)).isEqualTo(new Outcome.Success(result));
    }
  }

  @Test
  void outcomesOverTheLimitAreRejectedNamingSizes() {
    JsonOutcomeCodec small = JsonOutcomeCodec.withMaxBytes(256);
    Outcome fits = new Outcome.Success("\"" + "a".repeat(200) + "\"");
    Outcome tooBig = new Outcome.Success("\"" + "a".repeat(300) + "\"");
    assertThat(small.decode(small.encode(fits))).isEqualTo(fits);
    assertThatThrownBy(() -> small.encode(tooBig))
        .isInstanceOf(OutcomeTooLargeException.class)
        .hasMessageMatching("encoded outcome is \\d+ bytes, over the limit of 256 bytes");
    assertThatThrownBy(() -> JsonOutcomeCodec.withMaxBytes(10))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void corruptStoredBytesAreAClearError() {
    for (String bad :
        List.of("", "not json", "[]", "{\"kind\":\"other\"}", "{\"kind\":\"success\"}")) {
      assertThatThrownBy(() -> codec.decode(bad.getBytes(StandardCharsets.UTF_8)))
          .as(bad)
          .isInstanceOf(OutcomeEncodingException.class);
    }
    assertThatThrownBy(() -> codec.decode(null)).isInstanceOf(OutcomeEncodingException.class);
  }
}
