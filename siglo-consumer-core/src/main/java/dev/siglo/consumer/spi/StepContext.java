package dev.siglo.consumer.spi;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.store.Outcome;
import java.util.Objects;

/**
 * The step SPI: what a step kind defined outside the core (such as the PostgreSQL store's
 * transactional step) needs from the handler call it runs in, so it builds its key, classifies its
 * failures and encodes its result exactly as a core {@link dev.siglo.consumer.Step} would. Handlers
 * never need this; they call {@link HandlerContext#run}.
 *
 * <p>Every {@link HandlerContext} the engine hands to a handler is also a {@code StepContext};
 * obtain it with {@link #of(HandlerContext)}. Confined to the handler's thread, like the context.
 */
public interface StepContext {

  /**
   * The step context of a handler call.
   *
   * @param context the context the engine passed to the handler
   * @return the same call's step context
   * @throws IllegalArgumentException when the context was not made by the engine (a test double,
   *     say): such a context cannot scope step keys
   */
  static StepContext of(HandlerContext context) {
    Objects.requireNonNull(context, "context");
    if (context instanceof StepContext steps) {
      return steps;
    }
    throw new IllegalArgumentException(
        "steps run only inside a handler call made by the Siglo engine, not in "
            + context.getClass().getName());
  }

  /**
   * Builds a step's store key: scoped under the message's key ({@code <message key>:step:<step
   * name>:<step key>}), or built from the raw key alone when {@code absolute} is set or the message
   * has no key.
   *
   * @param stepName the step's name
   * @param rawStepKey the key the step's key function returned
   * @param absolute whether the key is shared across messages
   * @return the key to claim
   * @throws dev.siglo.consumer.error.InvalidIdempotencyKeyException when the raw key is invalid
   */
  String stepKey(String stepName, String rawStepKey, boolean absolute);

  /**
   * @return the processor's error classifier, for steps that do not set their own
   */
  ErrorClassifier classifier();

  /**
   * Encodes a step's result as the JSON text stored in its outcome, as core steps do.
   *
   * @param value the result, may be {@code null}
   * @return its JSON text
   * @throws dev.siglo.consumer.error.OutcomeEncodingException when it cannot be encoded
   */
  String encodeResult(Object value);

  /**
   * What a step whose key completed before returns, as core steps do: a cached success decoded into
   * the result type, a cached decline thrown again.
   *
   * @param stepName the step's name, for the error
   * @param outcome the stored outcome
   * @param type the result type ({@code Void} decodes to {@code null})
   * @param <R> the result type
   * @return the cached result
   * @throws dev.siglo.consumer.StepDeclinedException when the outcome is a decline
   * @throws dev.siglo.consumer.error.OutcomeEncodingException when it cannot be decoded
   */
  <R> R replay(String stepName, Outcome outcome, Class<R> type);
}
