package dev.siglo.consumer;

/**
 * The body of a {@link Step}.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
@FunctionalInterface
public interface StepFunction<I, R> {
  /**
   * @param input the step's input
   * @return the result (encoded as JSON when the step is idempotent), may be {@code null}
   * @throws Exception a failure, classified permanent or transient
   */
  R apply(I input) throws Exception;
}
