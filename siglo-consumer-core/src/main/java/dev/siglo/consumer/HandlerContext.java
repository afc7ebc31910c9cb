package dev.siglo.consumer;

import java.util.List;
import java.util.Optional;

/**
 * What a handler sees besides its payload: the message, its idempotency key and claim token, the
 * in-process attempt, and the runner of steps. Valid only during the handler call, on the calling
 * thread.
 */
public interface HandlerContext {

  /**
   * @return the message being handled
   */
  Message message();

  /**
   * @return the built idempotency key, empty when the message is processed without idempotency
   */
  Optional<String> idempotencyKey();

  /**
   * @return the claim's owner token (a fencing token to pass to downstream systems), empty when
   *     processed without idempotency
   */
  Optional<String> claimToken();

  /**
   * @return the in-process attempt of this delivery, starting at 1
   */
  int attempt();

  /**
   * Runs a step. An idempotent step claims its own key (scoped under the message key unless it is
   * absolute); when completed before, its cached result is returned without running it, and a
   * cached decline is thrown again as {@link dev.siglo.consumer.StepDeclinedException}.
   *
   * @param step the step
   * @param input its input
   * @param <I> the input type
   * @param <R> the result type
   * @return the step's result (fresh or cached)
   * @throws Exception the step's failure (or its hooks'), after the step's claim was settled
   */
  <I, R> R run(Step<I, R> step, I input) throws Exception;

  /**
   * Runs a step kind defined outside the core, such as a transactional step.
   *
   * @param step the step
   * @param input its input
   * @param <I> the input type
   * @param <R> the result type
   * @return the step's result (fresh or cached)
   * @throws Exception the step's failure
   */
  default <I, R> R run(CustomStep<I, R> step, I input) throws Exception {
    return step.run(this, input);
  }

  /**
   * Folds a list with a reduce step; for an idempotent reduce step each element is its own
   * idempotent unit whose cached result is the accumulator after that element, so a redelivery
   * resumes after the last completed element.
   *
   * @param step the reduce step
   * @param elements the elements, in order
   * @param initial the initial accumulator
   * @param <E> the element type
   * @param <A> the accumulator type
   * @return the final accumulator
   * @throws Exception the failure of an element
   */
  <E, A> A reduce(ReduceStep<E, A> step, List<? extends E> elements, A initial) throws Exception;
}
