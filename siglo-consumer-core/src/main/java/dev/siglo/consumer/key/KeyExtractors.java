package dev.siglo.consumer.key;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Factories of {@link IdempotencyKeyExtractor}s: Kafka header, record key, SQS message attribute,
 * SQS {@code MessageDeduplicationId}, broker message id, a JSON Pointer into the payload, a lambda
 * over the decoded value, and the first present of several. Every extractor is thread-safe.
 */
public final class KeyExtractors {
  /** The SQS system attribute holding the FIFO deduplication id. */
  public static final String DEDUPLICATION_ID = "MessageDeduplicationId";

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private KeyExtractors() {}

  /**
   * Parses a key-source list, the form configuration files use: comma-separated sources, the first
   * present wins. A source is {@code header:<name>}, {@code attribute:<name>}, {@code
   * json-pointer:<pointer>}, {@code record-key}, {@code deduplication-id} or {@code message-id};
   * for example {@code header:idempotency-key, record-key}.
   *
   * @param spec the list
   * @return the extractor
   * @throws IllegalArgumentException naming the source that is unknown or lacks its name
   */
  public static IdempotencyKeyExtractor<Object> parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    List<IdempotencyKeyExtractor<Object>> parts = new ArrayList<>();
    for (String part : spec.trim().split("\\s*,\\s*")) {
      String[] kv = part.split(":", 2);
      String arg = kv.length > 1 ? kv[1] : null;
      parts.add(
          switch (kv[0]) {
            case "header" -> header(needName(part, arg));
            case "attribute" -> attribute(needName(part, arg));
            case "json-pointer" -> jsonPointer(needName(part, arg));
            case "record-key" -> recordKey();
            case "deduplication-id" -> deduplicationId();
            case "message-id" -> messageId();
            default ->
                throw new IllegalArgumentException(
                    "'"
                        + part
                        + "' is not a key source (header:<name>, attribute:<name>,"
                        + " json-pointer:<pointer>, record-key, deduplication-id, message-id)");
          });
    }
    return firstPresent(parts);
  }

  private static String needName(String part, String arg) {
    if (arg == null || arg.isBlank()) {
      throw new IllegalArgumentException(
          "'" + part + "' needs a name, for example header:idempotency-key");
    }
    return arg;
  }

  /**
   * @param name the Kafka header name
   * @return an extractor reading that header
   */
  public static IdempotencyKeyExtractor<Object> header(String name) {
    Objects.requireNonNull(name, "name");
    return named("header '" + name + "'", (m, v) -> m.header(name));
  }

  /**
   * @param name the SQS message attribute name (SQS attributes live in {@link Message#headers()})
   * @return an extractor reading that attribute
   */
  public static IdempotencyKeyExtractor<Object> attribute(String name) {
    Objects.requireNonNull(name, "name");
    return named("message attribute '" + name + "'", (m, v) -> m.header(name));
  }

  /**
   * @param name a system attribute name
   * @return an extractor reading that system attribute
   */
  public static IdempotencyKeyExtractor<Object> systemAttribute(String name) {
    Objects.requireNonNull(name, "name");
    return named(
        "system attribute '" + name + "'",
        (m, v) -> Optional.ofNullable(m.systemAttributes().get(name)));
  }

  /**
   * @return an extractor reading the SQS {@code MessageDeduplicationId}
   */
  public static IdempotencyKeyExtractor<Object> deduplicationId() {
    return systemAttribute(DEDUPLICATION_ID);
  }

  /**
   * @return an extractor reading the broker record key (Kafka)
   */
  public static IdempotencyKeyExtractor<Object> recordKey() {
    return named("record key", (m, v) -> m.recordKey());
  }

  /**
   * @return an extractor reading the broker message id
   */
  public static IdempotencyKeyExtractor<Object> messageId() {
    return named("message id", (m, v) -> Optional.of(m.id()));
  }

  /**
   * An extractor reading a JSON Pointer (RFC 6901) into the payload, parsed as JSON. A textual or
   * numeric value is the key; a missing, null or structured value means "no key here"; a payload
   * that is not JSON makes the extractor fail.
   *
   * @param pointer the pointer, for example {@code /order/id}
   * @return the extractor
   * @throws IllegalArgumentException when the pointer is malformed
   */
  public static IdempotencyKeyExtractor<Object> jsonPointer(String pointer) {
    JsonPointer compiled = JsonPointer.compile(Objects.requireNonNull(pointer, "pointer"));
    return named(
        "JSON pointer '" + pointer + "'",
        (m, v) -> {
          JsonNode node = MAPPER.readTree(m.payload());
          if (node == null) {
            return Optional.empty();
          }
          JsonNode at = node.at(compiled);
          return at.isTextual() || at.isNumber() ? Optional.of(at.asText()) : Optional.empty();
        });
  }

  /**
   * @param fn a function of the decoded payload; {@code null} means "no key"
   * @param <T> the decoded payload type
   * @return an extractor applying the function
   */
  public static <T> IdempotencyKeyExtractor<T> fromValue(Function<? super T, String> fn) {
    Objects.requireNonNull(fn, "fn");
    return named("function of the payload", (m, v) -> Optional.ofNullable(fn.apply(v)));
  }

  /**
   * The first extractor that finds a non-blank key wins; an extractor that fails stops the search
   * (so a broken payload is not silently keyed by a fallback).
   *
   * @param extractors the extractors in order
   * @param <T> the decoded payload type
   * @return the combined extractor
   */
  @SafeVarargs
  public static <T> IdempotencyKeyExtractor<T> firstPresent(
      IdempotencyKeyExtractor<? super T>... extractors) {
    List<IdempotencyKeyExtractor<? super T>> list = new ArrayList<>(extractors.length);
    for (IdempotencyKeyExtractor<? super T> e : extractors) {
      list.add(e);
    }
    return firstPresent(list);
  }

  /**
   * The first extractor that finds a non-blank key wins; an extractor that fails stops the search.
   *
   * @param extractors the extractors in order
   * @param <T> the decoded payload type
   * @return the combined extractor
   */
  public static <T> IdempotencyKeyExtractor<T> firstPresent(
      List<? extends IdempotencyKeyExtractor<? super T>> extractors) {
    List<IdempotencyKeyExtractor<? super T>> list = new ArrayList<>(extractors.size());
    for (IdempotencyKeyExtractor<? super T> e : extractors) {
      list.add(Objects.requireNonNull(e, "extractor"));
    }
    if (list.isEmpty()) {
      throw new IllegalArgumentException("firstPresent needs at least one extractor");
    }
    String description =
        list.stream().map(IdempotencyKeyExtractor::describe).collect(Collectors.joining(", else "));
    return named(
        description,
        (m, v) -> {
          for (IdempotencyKeyExtractor<? super T> e : list) {
            Optional<String> key = e.extract(m, v);
            if (key.isPresent() && !key.get().isBlank()) {
              return key;
            }
          }
          return Optional.empty();
        });
  }

  private static <T> IdempotencyKeyExtractor<T> named(
      String description, IdempotencyKeyExtractor<T> extractor) {
    return new IdempotencyKeyExtractor<>() {
      @Override
      public Optional<String> extract(Message message, T value) throws Exception {
        return extractor.extract(message, value);
      }

      @Override
      public String describe() {
        return description;
      }

      @Override
      public String toString() {
        return description;
      }
    };
  }
}
