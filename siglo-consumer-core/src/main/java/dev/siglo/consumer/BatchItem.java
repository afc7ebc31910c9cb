package dev.siglo.consumer;

import java.util.Objects;

/**
 * One message of a batch handed to a {@link BatchMessageHandler}: its decoded payload and its
 * context (the message, its key and claim, and the step runner). Items are compared by identity;
 * report each item's result with {@link BatchResult.Builder}. Immutable; the context's steps run
 * only while the handler's call lasts.
 *
 * @param <T> the decoded payload type
 */
public final class BatchItem<T> {
  private final T value;
  private final HandlerContext context;

  private BatchItem(T value, HandlerContext context) {
    this.value = value;
    this.context = Objects.requireNonNull(context, "context");
  }

  /**
   * An item; runtimes and the engine make them, tests of a handler may too.
   *
   * @param value the decoded payload (may be {@code null} when the decoder returns it)
   * @param context the message's context
   * @param <T> the decoded payload type
   * @return the item
   */
  public static <T> BatchItem<T> of(T value, HandlerContext context) {
    return new BatchItem<>(value, context);
  }

  /**
   * @return the decoded payload
   */
  public T value() {
    return value;
  }

  /**
   * @return the message's context: {@link HandlerContext#message()}, its key, and {@link
   *     HandlerContext#run} for steps keyed under it
   */
  public HandlerContext context() {
    return context;
  }

  /**
   * @return the delivered message (the same as {@code context().message()})
   */
  public Message message() {
    return context.message();
  }

  @Override
  public String toString() {
    return "BatchItem[" + context.message() + "]";
  }
}
