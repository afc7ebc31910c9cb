package dev.siglo.consumer.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.UnreadableOutcomeException;
import java.util.Objects;

/**
 * Handler and step results as JSON text inside a stored {@code Outcome.Success}, through one
 * Jackson {@link ObjectMapper}. With Siglo's default mapper, the commonest results ({@code null},
 * booleans, integers and longs) are written without building a JSON generator, as the mapper would
 * write them. Thread-safe.
 */
final class ResultJson {
  private final ObjectMapper mapper;
  private final boolean plainScalars;

  private ResultJson(ObjectMapper mapper) {
    this.mapper = mapper;
    this.plainScalars = mapper == MessageProcessorConfig.DEFAULT_RESULT_MAPPER;
  }

  /**
   * @param mapper the object mapper to use; shared, not modified
   * @return a codec using it
   */
  static ResultJson of(ObjectMapper mapper) {
    return new ResultJson(Objects.requireNonNull(mapper, "mapper"));
  }

  /**
   * @param value a result, may be {@code null}
   * @return its JSON text
   * @throws OutcomeEncodingException naming the type when it cannot be encoded
   */
  String encode(Object value) {
    if (plainScalars) {
      if (value == null) {
        return "null";
      }
      if (value instanceof Integer || value instanceof Long || value instanceof Boolean) {
        return value.toString();
      }
    }
    try {
      return mapper.writeValueAsString(value);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new OutcomeEncodingException(
          "result of type "
              + (value == null ? "null" : value.getClass().getName())
              + " cannot be encoded as JSON: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * @param json JSON text produced by {@link #encode}
   * @param type the type to decode into; {@code Void} gives {@code null}
   * @param <T> the type
   * @return the value
   * @throws OutcomeEncodingException when the text does not decode into the type
   */
  <T> T decode(String json, Class<T> type) {
    if (type == Void.class || type == void.class) {
      return null;
    }
    try {
      return mapper.readValue(json, type);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new UnreadableOutcomeException(
          "cached result cannot be decoded into " + type.getName() + ": " + e.getMessage(), e);
    }
  }
}
