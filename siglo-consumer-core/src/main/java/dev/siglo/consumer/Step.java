package dev.siglo.consumer;

import dev.siglo.consumer.classify.ErrorClassifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A named unit of work inside a handler, run with {@code HandlerContext.run(step, input)}.
 *
 * <pre>{@code
 * Step<Order, Receipt> charge =
 *     Step.of("chargeCard", Receipt.class, order -> gateway.charge(order))
 *         .idempotent(order -> "charge:" + order.id(), IdempotencyConfig.defaults())
 *         .onAfter((order, receipt) -> audit.log(receipt));
 * }</pre>
 *
 * <p>An idempotent step has its own claim, result cache, {@code onAfter} hooks, classification and
 * wait-and-settle: when a message is redelivered after a transient failure in a later step, this
 * step returns its cached result (decoded into {@code resultType}) and does not run again. Its key
 * is scoped under the message key ({@code <messageKey>:step:<name>:<key>}) unless {@link
 * #absoluteKey()} is set. The record becomes {@code COMPLETED} only after every hook passed.
 *
 * <p>Steps are immutable: every modifier returns a new step. Thread-safe when the functions are.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
public final class Step<I, R> {
  private final String name;
  private final Class<R> resultType;
  private final StepFunction<I, R> body;
  private final Function<? super I, String> keyFunction;
  private final IdempotencyConfig options;
  private final boolean absoluteKey;
  private final List<StepHook<? super I, ? super R>> hooks;
  private final ErrorClassifier classifier;

  private Step(
      String name,
      Class<R> resultType,
      StepFunction<I, R> body,
      Function<? super I, String> keyFunction,
      IdempotencyConfig options,
      boolean absoluteKey,
      List<StepHook<? super I, ? super R>> hooks,
      ErrorClassifier classifier) {
    this.name = name;
    this.resultType = resultType;
    this.body = body;
    this.keyFunction = keyFunction;
    this.options = options;
    this.absoluteKey = absoluteKey;
    this.hooks = List.copyOf(hooks);
    this.classifier = classifier;
  }

  /**
   * Creates a (not yet idempotent) step.
   *
   * @param name the step name: 1 to 64 characters, no {@code :} or whitespace
   * @param resultType the result type, used to decode cached results ({@code Void.class} for none)
   * @param body the work
   * @param <I> the input type
   * @param <R> the result type
   * @return the step
   */
  public static <I, R> Step<I, R> of(String name, Class<R> resultType, StepFunction<I, R> body) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()
        || name.length() > 64
        || name.contains(":")
        || name.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "step name must be 1 to 64 characters without ':' or whitespace: '" + name + "'");
    }
    return new Step<>(
        name,
        Objects.requireNonNull(resultType, "resultType"),
        Objects.requireNonNull(body, "body"),
        null,
        null,
        false,
        List.of(),
        null);
  }

  /**
   * Makes the step idempotent.
   *
   * @param keyFunction computes the step's raw key from its input
   * @param options ttl, lease, settle timeout and poll interval
   * @return the idempotent step
   */
  public Step<I, R> idempotent(Function<? super I, String> keyFunction, IdempotencyConfig options) {
    return new Step<>(
        name,
        resultType,
        body,
        Objects.requireNonNull(keyFunction, "keyFunction"),
        Objects.requireNonNull(options, "options"),
        absoluteKey,
        hooks,
        classifier);
  }

  /**
   * Makes the step idempotent with the default options.
   *
   * @param keyFunction computes the step's raw key from its input
   * @return the idempotent step
   */
  public Step<I, R> idempotent(Function<? super I, String> keyFunction) {
    return idempotent(keyFunction, IdempotencyConfig.defaults());
  }

  /**
   * Uses the step key as given (built with the processor's namespace and version) instead of
   * scoping it under the message key, so that different messages share the step's record.
   *
   * @return the step with an absolute key
   */
  public Step<I, R> absoluteKey() {
    return new Step<>(name, resultType, body, keyFunction, options, true, hooks, classifier);
  }

  /**
   * Adds a post-execution hook; hooks run in the order added.
   *
   * @param hook the hook
   * @return the step with the hook
   */
  public Step<I, R> onAfter(StepHook<? super I, ? super R> hook) {
    List<StepHook<? super I, ? super R>> more = new ArrayList<>(hooks);
    more.add(Objects.requireNonNull(hook, "hook"));
    return new Step<>(name, resultType, body, keyFunction, options, absoluteKey, more, classifier);
  }

  /**
   * Classifies this step's failures with its own classifier instead of the processor's.
   *
   * @param classifier the classifier
   * @return the step with its classifier
   */
  public Step<I, R> classifier(ErrorClassifier classifier) {
    return new Step<>(
        name,
        resultType,
        body,
        keyFunction,
        options,
        absoluteKey,
        hooks,
        Objects.requireNonNull(classifier, "classifier"));
  }

  /**
   * @return the step name
   */
  public String name() {
    return name;
  }

  /**
   * @return the result type
   */
  public Class<R> resultType() {
    return resultType;
  }

  /**
   * @return the body
   */
  public StepFunction<I, R> body() {
    return body;
  }

  /**
   * @return whether the step is idempotent
   */
  public boolean isIdempotent() {
    return keyFunction != null;
  }

  /**
   * @return the key function, or {@code null} when not idempotent
   */
  public Function<? super I, String> keyFunction() {
    return keyFunction;
  }

  /**
   * @return the options, or {@code null} when not idempotent
   */
  public IdempotencyConfig idempotency() {
    return options;
  }

  /**
   * @return whether the key is absolute
   */
  public boolean hasAbsoluteKey() {
    return absoluteKey;
  }

  /**
   * @return the hooks in order
   */
  public List<StepHook<? super I, ? super R>> hooks() {
    return hooks;
  }

  /**
   * @return the step's own classifier, or {@code null} to use the processor's
   */
  public ErrorClassifier classifier() {
    return classifier;
  }

  @Override
  public String toString() {
    return "Step[" + name + (isIdempotent() ? ", idempotent" : "") + "]";
  }
}
