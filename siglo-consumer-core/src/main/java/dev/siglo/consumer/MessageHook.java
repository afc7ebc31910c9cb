package dev.siglo.consumer;

/**
 * A post-execution hook of a message ({@code onAfter}): runs after the handler returned and before
 * the record is completed. The record becomes {@code COMPLETED} only after every hook passed; a
 * hook that throws is handled exactly like a handler that throws (classified; transient releases
 * the claim). Must be thread-safe.
 */
@FunctionalInterface
public interface MessageHook {

  /**
   * @param message the message
   * @param result the handler's result, may be {@code null}
   * @throws Exception a failure, classified like a handler failure
   */
  void after(Message message, Object result) throws Exception;
}
