package dev.siglo.consumer.key;

import dev.siglo.consumer.Message;
import java.util.Optional;

/**
 * Finds a message's raw idempotency key. Compose the factories of {@link KeyExtractors}. An empty
 * or blank answer means "no key here"; an exception means the extractor failed, which is handled
 * like a missing key (with the exception attached). Implementations must be thread-safe.
 *
 * @param <T> the decoded payload type the extractor can read
 */
@FunctionalInterface
public interface IdempotencyKeyExtractor<T> {

  /**
   * Extracts the raw key.
   *
   * @param message the message
   * @param value the decoded payload (may be {@code null})
   * @return the raw key, or empty when this message has none here
   * @throws Exception when the extractor cannot read the message
   */
  Optional<String> extract(Message message, T value) throws Exception;

  /**
   * @return a description for error messages, for example {@code header 'idempotency-key'}
   */
  default String describe() {
    return getClass().getSimpleName();
  }
}
