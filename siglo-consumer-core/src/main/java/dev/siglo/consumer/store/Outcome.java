package dev.siglo.consumer.store;

import java.util.Map;
import java.util.Objects;

/**
 * The stored outcome of a completed key: either {@link Success} with the handler's encoded result,
 * or {@link Declined}, a cached permanent failure that redelivered duplicates get back without the
 * handler running again.
 */
public sealed interface Outcome permits Outcome.Success, Outcome.Declined {

  /**
   * A successful execution.
   *
   * @param resultJson the result encoded as JSON text ({@code null} is encoded as {@code "null"})
   */
  record Success(String resultJson) implements Outcome {
    /**
     * Validates the result.
     *
     * @param resultJson see the record component
     */
    public Success {
      Objects.requireNonNull(resultJson, "resultJson");
    }
  }

  /**
   * A cached permanent failure (business decline or poison).
   *
   * @param errorType the exception class name (or a user-chosen error code)
   * @param message the exception message, may be empty, never {@code null}
   * @param attributes extra string attributes (for example a decline code); unmodifiable
   */
  record Declined(String errorType, String message, Map<String, String> attributes)
      implements Outcome {
    /**
     * Validates and copies.
     *
     * @param errorType see the record component
     * @param message see the record component
     * @param attributes see the record component
     */
    public Declined {
      Objects.requireNonNull(errorType, "errorType");
      message = message == null ? "" : message;
      attributes = Map.copyOf(attributes == null ? Map.of() : attributes);
    }
  }
}
