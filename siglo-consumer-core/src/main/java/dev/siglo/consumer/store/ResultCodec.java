package dev.siglo.consumer.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.error.OutcomeEncodingException;
import java.util.Objects;

/**
 * Encodes handler and step results as JSON text for {@link Outcome.Success} and decodes cached
 * results back into the step's result type. Backed by a Jackson {@link ObjectMapper}; thread-safe.
 */
public final class ResultCodec {
  private static final ResultCodec DEFAULT =
      new ResultCodec(new ObjectMapper().findAndRegisterModules());

  private final ObjectMapper mapper;

  private ResultCodec(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * @return a codec with a default object mapper (modules on the class path registered)
   */
  public static ResultCodec json() {
    return DEFAULT;
  }

  /**
   * @param mapper the object mapper to use; shared, not modified
   * @return a codec using it
   */
  public static ResultCodec json(ObjectMapper mapper) {
    return new ResultCodec(Objects.requireNonNull(mapper, "mapper"));
  }

  /**
   * @param value a result, may be {@code null}
   * @return its JSON text
   * @throws OutcomeEncodingException naming the type when it cannot be encoded
   */
  public String encode(Object value) {
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
  public <T> T decode(String json, Class<T> type) {
    if (type == Void.class || type == void.class) {
      return null;
    }
    try {
      return mapper.readValue(json, type);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new OutcomeEncodingException(
          "cached result cannot be decoded into " + type.getName() + ": " + e.getMessage(), e);
    }
  }
}
