package dev.siglo.consumer;

/**
 * The body of a {@link ReduceStep}: folds one element into the accumulator.
 *
 * @param <A> the accumulator type
 * @param <E> the element type
 */
@FunctionalInterface
public interface Reducer<A, E> {
  /**
   * @param accumulator the accumulator so far
   * @param element the next element
   * @return the accumulator after the element
   * @throws Exception a failure, classified permanent or transient
   */
  A apply(A accumulator, E element) throws Exception;
}
