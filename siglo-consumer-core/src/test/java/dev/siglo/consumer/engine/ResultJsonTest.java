package dev.siglo.consumer.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.error.OutcomeEncodingException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultJsonTest {
  static final class Cyclic {
    public Cyclic self = this;
  }

  @Test
  void resultsThatJacksonCannotEncodeOrDecodeAreAClearError() {
    ResultJson results = ResultJson.of(new ObjectMapper());
    assertThatThrownBy(() -> results.encode(new Cyclic()))
        .isInstanceOf(OutcomeEncodingException.class)
        .hasMessageContaining(Cyclic.class.getName());
    assertThatThrownBy(() -> results.decode("\"text\"", Integer.class))
        .isInstanceOf(OutcomeEncodingException.class)
        .hasMessageContaining("java.lang.Integer");
    assertThat(results.encode(null)).isEqualTo("null");
    assertThat(results.decode("{\"a\":1}", Void.class)).isNull();
    Object decoded = results.decode(results.encode(Map.of("a", 1)), Object.class);
    assertThat(decoded).isEqualTo(Map.of("a", 1));
  }
}
