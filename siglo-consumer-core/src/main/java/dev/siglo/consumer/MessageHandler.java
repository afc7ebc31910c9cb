package dev.siglo.consumer;

import dev.siglo.consumer.error.PermanentException;

/**
 * What users implement: handles one decoded message. Siglo calls it only while holding the
 * message's idempotency claim, so for each key it runs to success (or permanent decline) once; a
 * duplicate gets the cached result or the cached decline without calling it.
 *
 * <p>Throw a {@link PermanentException} (or an exception the configured classifier calls permanent)
 * for a business decline: it is cached and acknowledged. Any transient failure releases the claim
 * and the message is retried. Wrap side effects that must not repeat after a partial failure in
 * idempotent {@link dev.siglo.consumer.Step}s run through the context.
 *
 * <p>Handlers run on worker threads, possibly concurrently for different keys, and must be
 * thread-safe.
 *
 * @param <T> the decoded payload type
 */
@FunctionalInterface
public interface MessageHandler<T> {

  /**
   * Handles one message.
   *
   * @param value the decoded payload
   * @param context the message, its key and claim, and the step runner
   * @return the result to cache for duplicates (encoded as JSON), may be {@code null}
   * @throws Exception a failure, classified permanent or transient
   */
  Object handle(T value, HandlerContext context) throws Exception;
}
