package dev.siglo.consumer;

import java.util.Objects;
import java.util.function.Function;

/**
 * A {@code reduce}-style step over a list, run with {@code HandlerContext.reduce(step, elements,
 * initial)}. When idempotent, each element is its own idempotent unit (keyed by {@code
 * elementKey(element)} under the step) whose cached result is the accumulator after that element: a
 * redelivery replays the completed elements from the cache and runs only the rest. The fold must be
 * deterministic in the elements' order for that replay to be sound.
 *
 * <p>Immutable; thread-safe when the functions are.
 *
 * @param <E> the element type
 * @param <A> the accumulator type
 */
public final class ReduceStep<E, A> {
  private final Step<Element<E, A>, A> perElement;
  private final Function<? super E, String> elementKey;

  private ReduceStep(Step<Element<E, A>, A> perElement, Function<? super E, String> elementKey) {
    this.perElement = perElement;
    this.elementKey = elementKey;
  }

  /**
   * Creates a (not yet idempotent) reduce step.
   *
   * @param name the step name
   * @param accumulatorType the accumulator type, used to decode cached accumulators
   * @param reducer folds one element into the accumulator
   * @param <E> the element type
   * @param <A> the accumulator type
   * @return the step
   */
  public static <E, A> ReduceStep<E, A> of(
      String name, Class<A> accumulatorType, Reducer<A, E> reducer) {
    Objects.requireNonNull(reducer, "reducer");
    return new ReduceStep<>(
        Step.of(name, accumulatorType, in -> reducer.apply(in.accumulator(), in.element())), null);
  }

  /**
   * Makes each element an idempotent unit.
   *
   * @param elementKey the raw key of an element (unique within the list)
   * @param options ttl, lease, settle timeout and poll interval
   * @return the idempotent reduce step
   */
  public ReduceStep<E, A> idempotent(
      Function<? super E, String> elementKey, IdempotencyConfig options) {
    Objects.requireNonNull(elementKey, "elementKey");
    return new ReduceStep<>(
        perElement.idempotent(in -> elementKey.apply(in.element()), options), elementKey);
  }

  /**
   * Adds a hook run after each element, before that element's record completes.
   *
   * @param hook receives the element and the accumulator after it
   * @return the step with the hook
   */
  public ReduceStep<E, A> onAfter(StepHook<? super E, ? super A> hook) {
    Objects.requireNonNull(hook, "hook");
    return new ReduceStep<>(
        perElement.onAfter((in, acc) -> hook.after(in.element(), acc)), elementKey);
  }

  /**
   * @return the step name
   */
  public String name() {
    return perElement.name();
  }

  /**
   * @return whether each element is idempotent
   */
  public boolean isIdempotent() {
    return elementKey != null;
  }

  /**
   * The per-element step the runner executes for each element.
   *
   * @return the per-element step
   */
  public Step<Element<E, A>, A> perElementStep() {
    return perElement;
  }

  /**
   * The input of one element's unit.
   *
   * @param accumulator the accumulator before the element
   * @param element the element
   * @param <E> the element type
   * @param <A> the accumulator type
   */
  public record Element<E, A>(A accumulator, E element) {}
}
