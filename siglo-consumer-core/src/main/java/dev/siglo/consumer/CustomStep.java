package dev.siglo.consumer;

/**
 * A step kind defined outside the core (the PostgreSQL store's {@code TransactionalStep} is one),
 * run like any step with {@link HandlerContext#run(CustomStep, Object)}. An implementation obtains
 * what it needs of the call through {@code dev.siglo.consumer.spi.StepContext.of(context)}, so its
 * key, classification and result encoding match a core {@link Step}. Implementations are immutable
 * and thread-safe.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
@FunctionalInterface
public interface CustomStep<I, R> {
  /**
   * Runs the step inside a handler call.
   *
   * @param context the context the engine passed to the handler
   * @param input the step's input
   * @return the step's result (fresh or cached)
   * @throws Exception the step's failure, after its claim was settled
   */
  R run(HandlerContext context, I input) throws Exception;
}
