package dev.siglo.store.postgres;

import dev.siglo.consumer.CustomStep;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.spi.StepContext;
import java.util.Objects;
import java.util.function.Function;

/**
 * A step whose database writes and idempotency record commit in one JDBC transaction: exactly-once
 * for database effects. Either both the user's writes and the {@code COMPLETED} record commit, or
 * neither does (a crash before the commit leaves nothing, and the redelivery runs the step once).
 *
 * <pre>{@code
 * TransactionalStep<Order, Long> record =
 *     TransactionalStep.of(store, "recordPayment", Long.class, (connection, order) -> {
 *           try (var ps = connection.prepareStatement("INSERT INTO payments ... RETURNING id")) { ... }
 *         })
 *         .idempotent(order -> "payment:" + order.id(), IdempotencyConfig.defaults());
 * long paymentId = context.run(record, order);   // inside a MessageHandler
 * }</pre>
 *
 * <p>Semantics: the claim is an insert into the record table inside the transaction, so a
 * concurrent duplicate waits on the row lock and settles on the committed outcome (up to the
 * options' {@code settleTimeout}, then {@code IdempotencyConflictException}). A permanent failure
 * rolls the user's writes back and commits a cached decline; a transient one rolls everything back.
 * The key is built like a core step's key ({@link StepContext#stepKey}). Immutable; thread-safe
 * when the functions are.
 *
 * @param <I> the input type
 * @param <R> the result type
 */
public final class TransactionalStep<I, R> implements CustomStep<I, R> {
  private final PostgresIdempotencyStore store;
  private final String name;
  private final Class<R> resultType;
  private final TransactionalFunction<I, R> body;
  private final Function<? super I, String> keyFunction;
  private final IdempotencyConfig options;
  private final boolean absoluteKey;
  private final ErrorClassifier classifier;

  private TransactionalStep(
      PostgresIdempotencyStore store,
      String name,
      Class<R> resultType,
      TransactionalFunction<I, R> body,
      Function<? super I, String> keyFunction,
      IdempotencyConfig options,
      boolean absoluteKey,
      ErrorClassifier classifier) {
    this.store = store;
    this.name = name;
    this.resultType = resultType;
    this.body = body;
    this.keyFunction = keyFunction;
    this.options = options;
    this.absoluteKey = absoluteKey;
    this.classifier = classifier;
  }

  /**
   * @param store the PostgreSQL store whose table holds the record (same database as the writes)
   * @param name the step name
   * @param resultType the result type, to decode cached results
   * @param body the database work
   * @param <I> the input type
   * @param <R> the result type
   * @return the step (make it idempotent with {@link #idempotent})
   */
  public static <I, R> TransactionalStep<I, R> of(
      PostgresIdempotencyStore store,
      String name,
      Class<R> resultType,
      TransactionalFunction<I, R> body) {
    return new TransactionalStep<>(
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(name, "name"),
        Objects.requireNonNull(resultType, "resultType"),
        Objects.requireNonNull(body, "body"),
        null,
        IdempotencyConfig.defaults(),
        false,
        null);
  }

  /**
   * @param keyFunction the step's raw key from its input
   * @param options ttl, lease, and the settle timeout (the longest wait for a concurrent duplicate)
   * @return the idempotent step
   */
  public TransactionalStep<I, R> idempotent(
      Function<? super I, String> keyFunction, IdempotencyConfig options) {
    return new TransactionalStep<>(
        store,
        name,
        resultType,
        body,
        Objects.requireNonNull(keyFunction, "keyFunction"),
        Objects.requireNonNull(options, "options"),
        absoluteKey,
        classifier);
  }

  /**
   * @return the step with an absolute key (not scoped under the message key)
   */
  public TransactionalStep<I, R> absoluteKey() {
    return new TransactionalStep<>(
        store, name, resultType, body, keyFunction, options, true, classifier);
  }

  /**
   * @param classifier classifies this step's failures instead of the processor's classifier
   * @return the step with its classifier
   */
  public TransactionalStep<I, R> classifier(ErrorClassifier classifier) {
    return new TransactionalStep<>(
        store,
        name,
        resultType,
        body,
        keyFunction,
        options,
        absoluteKey,
        Objects.requireNonNull(classifier, "classifier"));
  }

  /**
   * Runs the step once per key: the cached result when completed before (a cached decline is thrown
   * as {@code StepDeclinedException}), else the body and the record in one transaction.
   *
   * @param context the handler context (key scoping, classifier, result codec)
   * @param input the input
   * @return the result
   * @throws Exception the body's failure, or a store failure ({@code
   *     IdempotencyStoreUnavailableException}, {@code IdempotencyConflictException})
   */
  @Override
  public R run(HandlerContext context, I input) throws Exception {
    if (keyFunction == null) {
      throw new IllegalStateException(
          "transactional step '" + name + "' is not idempotent: call idempotent(...)");
    }
    StepContext steps = StepContext.of(context);
    String key = steps.stepKey(name, keyFunction.apply(input), absoluteKey);
    ErrorClassifier effective = classifier != null ? classifier : steps.classifier();
    return new TransactionalRunner(store)
        .run(key, name, options, effective, steps, resultType, body, input);
  }

  /**
   * @return the step name
   */
  public String name() {
    return name;
  }
}
