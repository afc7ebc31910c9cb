package dev.siglo.consumer.engine;

import dev.siglo.consumer.store.Outcome;

/**
 * The result of one idempotent invocation, when it did not end in a transient failure.
 *
 * @param <R> the body's result type
 */
sealed interface Invocation<R>
    permits Invocation.Executed, Invocation.Replayed, Invocation.DeclinedNow {

  /** The body ran and its success was completed. */
  record Executed<R>(R value, Outcome.Success outcome) implements Invocation<R> {}

  /** The key was completed before; the body did not run. {@code settled}: waited for it. */
  record Replayed<R>(Outcome outcome, boolean settled) implements Invocation<R> {}

  /** The body failed permanently now; the decline was completed. */
  record DeclinedNow<R>(Outcome.Declined decline, Exception cause) implements Invocation<R> {}
}
