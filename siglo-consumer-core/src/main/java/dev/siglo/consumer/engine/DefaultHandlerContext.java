package dev.siglo.consumer.engine;

import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.ReduceStep;
import dev.siglo.consumer.Step;
import dev.siglo.consumer.StepDeclinedException;
import dev.siglo.consumer.StepHook;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.spi.StepContext;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.Outcome;
import java.util.List;
import java.util.Optional;

/**
 * The context of one handler call; runs its steps through the invoker. Used by one thread at a time
 * (an asynchronous handler's stage may use it from another thread than the worker's); closed when
 * the handler's call (and its stage) finished, after which a step fails.
 */
final class DefaultHandlerContext implements HandlerContext, StepContext {
  private final Message message;
  private final String key;
  private final ClaimToken token;
  private final int attempt;
  private final IdempotentInvoker invoker;
  private final IdempotencyKeys keys;
  private final ErrorClassifier classifier;
  private final ResultJson codec;
  private final Tracing tracing;
  private volatile boolean closed;

  DefaultHandlerContext(
      Message message,
      String key,
      ClaimToken token,
      int attempt,
      IdempotentInvoker invoker,
      IdempotencyKeys keys,
      ErrorClassifier classifier,
      ResultJson codec,
      Tracing tracing) {
    this.message = message;
    this.key = key;
    this.token = token;
    this.attempt = attempt;
    this.invoker = invoker;
    this.keys = keys;
    this.classifier = classifier;
    this.codec = codec;
    this.tracing = tracing;
  }

  @Override
  public Message message() {
    return message;
  }

  @Override
  public Optional<String> idempotencyKey() {
    return Optional.ofNullable(key);
  }

  @Override
  public Optional<String> claimToken() {
    return token == null ? Optional.empty() : Optional.of(token.value());
  }

  @Override
  public int attempt() {
    return attempt;
  }

  /** The handler finished: its claim is no longer held for its steps. */
  void close() {
    closed = true;
  }

  @Override
  public <I, R> R run(Step<I, R> step, I input) throws Exception {
    if (closed) {
      throw new IllegalStateException(
          "step '"
              + step.name()
              + "' of "
              + message
              + " ran after its handler finished (an asynchronous handler's stage had completed"
              + " or timed out): run steps before the stage completes");
    }
    Tracing.Span span = tracing.step(step.name());
    try {
      return runUntraced(step, input);
    } catch (Exception | Error e) {
      span.fail(e);
      throw e;
    } finally {
      span.close();
    }
  }

  private <I, R> R runUntraced(Step<I, R> step, I input) throws Exception {
    if (!step.isIdempotent()) {
      return runBodyAndHooks(step, input);
    }
    String stepKey = stepKey(step.name(), step.keyFunction().apply(input), step.hasAbsoluteKey());
    ErrorClassifier stepClassifier = step.classifier() != null ? step.classifier() : classifier;
    Invocation<R> result =
        invoker.invoke(
            message,
            stepKey,
            null,
            step.idempotency(),
            stepClassifier,
            DeliveryBudget.NONE,
            t -> runBodyAndHooks(step, input));
    if (result instanceof Invocation.Executed<R> executed) {
      return executed.value();
    }
    if (result instanceof Invocation.DeclinedNow<R> declined) {
      throw declined.cause();
    }
    return replay(step.name(), ((Invocation.Replayed<R>) result).outcome(), step.resultType());
  }

  @Override
  public String stepKey(String stepName, String rawStepKey, boolean absolute) {
    return absolute || key == null ? keys.key(rawStepKey) : keys.scoped(key, stepName, rawStepKey);
  }

  @Override
  public ErrorClassifier classifier() {
    return classifier;
  }

  @Override
  public String encodeResult(Object value) {
    return codec.encode(value);
  }

  @Override
  public <R> R replay(String stepName, Outcome outcome, Class<R> type) {
    if (outcome instanceof Outcome.Declined decline) {
      throw new StepDeclinedException(stepName, decline);
    }
    return codec.decode(((Outcome.Success) outcome).resultJson(), type);
  }

  @Override
  public <E, A> A reduce(ReduceStep<E, A> step, List<? extends E> elements, A initial)
      throws Exception {
    Step<ReduceStep.Element<E, A>, A> perElement = step.perElementStep();
    A accumulator = initial;
    for (E element : elements) {
      accumulator = run(perElement, new ReduceStep.Element<>(accumulator, element));
    }
    return accumulator;
  }

  private static <I, R> R runBodyAndHooks(Step<I, R> step, I input) throws Exception {
    R result = step.body().apply(input);
    for (StepHook<? super I, ? super R> hook : step.hooks()) {
      hook.after(input, result);
    }
    return result;
  }
}
