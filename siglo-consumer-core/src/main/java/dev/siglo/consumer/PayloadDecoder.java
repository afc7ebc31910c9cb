package dev.siglo.consumer;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.error.PayloadDecodingException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Turns a message's payload bytes into the value the handler receives. Any exception it throws
 * makes the message poison: it is dead-lettered with a {@link PayloadDecodingException} and never
 * handed to the handler. Implementations must be thread-safe.
 *
 * @param <T> the decoded type
 */
@FunctionalInterface
public interface PayloadDecoder<T> {

  /**
   * Decodes the payload.
   *
   * @param message the message whose payload to decode
   * @return the decoded value, may be {@code null}
   * @throws Exception when the payload cannot be decoded
   */
  T decode(Message message) throws Exception;

  /**
   * @return a decoder that hands the raw bytes through
   */
  static PayloadDecoder<byte[]> bytes() {
    return Message::payload;
  }

  /**
   * @return a decoder for strict UTF-8 text (malformed input is rejected)
   */
  static PayloadDecoder<String> utf8() {
    return m ->
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(m.payload()))
            .toString();
  }

  /**
   * A JSON decoder into a type.
   *
   * @param mapper the object mapper to use (shared, thread-safe)
   * @param type the target type
   * @param <T> the target type
   * @return the decoder
   */
  static <T> PayloadDecoder<T> json(ObjectMapper mapper, Class<T> type) {
    Objects.requireNonNull(mapper, "mapper");
    Objects.requireNonNull(type, "type");
    var reader = mapper.readerFor(type);
    return m -> reader.readValue(m.payload());
  }

  /**
   * A JSON decoder into a type with a default object mapper.
   *
   * @param type the target type
   * @param <T> the target type
   * @return the decoder
   */
  static <T> PayloadDecoder<T> json(Class<T> type) {
    return json(new ObjectMapper(), type);
  }

  /**
   * A JSON decoder into a generic type, such as {@code new TypeReference<Map<String, Object>>()
   * {}}, with a default object mapper: no unchecked cast needed.
   *
   * @param type the target type
   * @param <T> the target type
   * @return the decoder
   */
  static <T> PayloadDecoder<T> json(TypeReference<T> type) {
    return json(new ObjectMapper(), type);
  }

  /**
   * A JSON decoder into a generic type.
   *
   * @param mapper the object mapper to use (shared, thread-safe)
   * @param type the target type
   * @param <T> the target type
   * @return the decoder
   */
  static <T> PayloadDecoder<T> json(ObjectMapper mapper, TypeReference<T> type) {
    Objects.requireNonNull(mapper, "mapper");
    Objects.requireNonNull(type, "type");
    var reader = mapper.readerFor(type);
    return m -> reader.readValue(m.payload());
  }

  /**
   * @return a decoder into a Jackson tree
   */
  static PayloadDecoder<JsonNode> jsonTree() {
    return json(JsonNode.class);
  }
}
