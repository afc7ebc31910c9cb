package dev.siglo.consumer;

/**
 * A post-execution hook of a step ({@code onAfter}). The step's record becomes {@code COMPLETED}
 * only after every hook passed; a hook that throws is handled like the step throwing.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
@FunctionalInterface
public interface StepHook<I, R> {
  /**
   * @param input the step's input
   * @param result the step's result
   * @throws Exception a failure, classified like a step failure
   */
  void after(I input, R result) throws Exception;
}
