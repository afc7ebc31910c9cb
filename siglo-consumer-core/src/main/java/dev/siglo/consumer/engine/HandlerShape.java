package dev.siglo.consumer.engine;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A handler object of one of Siglo's three shapes ({@link MessageHandler}, {@link
 * AsyncMessageHandler}, {@link BatchMessageHandler}), for tools that build a consumer from a class
 * name or a bean (the launcher, the Spring Boot starter): it says which shape it is and picks the
 * runtime builder that takes it. Immutable.
 *
 * @param <T> the decoded payload type
 */
public final class HandlerShape<T> {
  /** The three shapes. */
  public enum Kind {
    /** {@link MessageHandler}: one message, blocking. */
    MESSAGE(MessageHandler.class),
    /** {@link AsyncMessageHandler}: one message, a stage. */
    ASYNC(AsyncMessageHandler.class),
    /** {@link BatchMessageHandler}: a batch, each message ending on its own. */
    BATCH(BatchMessageHandler.class);

    private final Class<?> type;

    Kind(Class<?> type) {
      this.type = type;
    }

    /**
     * @return the handler interface of this shape
     */
    public Class<?> type() {
      return type;
    }
  }

  private final Object handler;
  private final Kind kind;

  private HandlerShape(Object handler, Kind kind) {
    this.handler = handler;
    this.kind = kind;
  }

  /**
   * @param handler an object implementing exactly one of the three handler interfaces
   * @param <T> the decoded payload type (unchecked: the caller knows it)
   * @return its shape
   * @throws IllegalArgumentException naming the class, when it implements none of them or several
   */
  @SuppressWarnings("unchecked")
  public static <T> HandlerShape<T> of(Object handler) {
    Objects.requireNonNull(handler, "handler");
    List<Kind> kinds = new ArrayList<>();
    for (Kind k : Kind.values()) {
      if (k.type.isInstance(handler)) {
        kinds.add(k);
      }
    }
    if (kinds.size() != 1) {
      throw new IllegalArgumentException(
          handler.getClass().getName()
              + (kinds.isEmpty()
                  ? " implements none of MessageHandler, AsyncMessageHandler, BatchMessageHandler"
                  : " implements several handler interfaces " + kinds + "; implement one"));
    }
    return new HandlerShape<>(handler, kinds.get(0));
  }

  /**
   * @return which shape it is
   */
  public Kind kind() {
    return kind;
  }

  /**
   * @return the handler object
   */
  public Object handler() {
    return handler;
  }

  /**
   * Picks what to do with the handler by its shape (typically: the runtime's {@code builder},
   * {@code asyncBuilder} or {@code batchBuilder}).
   *
   * @param message for a {@link MessageHandler}
   * @param async for an {@link AsyncMessageHandler}
   * @param batch for a {@link BatchMessageHandler}
   * @param <R> the result
   * @return what the chosen function returned
   */
  @SuppressWarnings("unchecked")
  public <R> R select(
      Function<MessageHandler<T>, R> message,
      Function<AsyncMessageHandler<T>, R> async,
      Function<BatchMessageHandler<T>, R> batch) {
    return switch (kind) {
      case MESSAGE -> message.apply((MessageHandler<T>) handler);
      case ASYNC -> async.apply((AsyncMessageHandler<T>) handler);
      case BATCH -> batch.apply((BatchMessageHandler<T>) handler);
    };
  }

  /**
   * The runtime builder for this handler: {@link #select} with the decoder passed along.
   *
   * @param decoder the payload decoder
   * @param message the runtime's {@code builder(decoder, handler)}
   * @param async its {@code asyncBuilder}
   * @param batch its {@code batchBuilder}
   * @param <B> the builder
   * @return the builder
   */
  public <B> B builder(
      PayloadDecoder<T> decoder,
      BiFunction<PayloadDecoder<T>, MessageHandler<T>, B> message,
      BiFunction<PayloadDecoder<T>, AsyncMessageHandler<T>, B> async,
      BiFunction<PayloadDecoder<T>, BatchMessageHandler<T>, B> batch) {
    return select(
        h -> message.apply(decoder, h), h -> async.apply(decoder, h), h -> batch.apply(decoder, h));
  }

  /**
   * Applies the settings of this handler's shape to its runtime builder: the batch size and linger
   * for a batch handler, the stage timeout for an asynchronous one; nothing for a one-message
   * handler.
   *
   * @param builder the builder {@link #builder} made
   * @param batching the batch size and linger
   * @param asyncTimeout the stage timeout
   * @param <B> the builder
   * @return the builder
   */
  public <B extends ConsumerBuilder<T, B>> B configure(
      B builder, Batching batching, java.time.Duration asyncTimeout) {
    switch (kind) {
      case BATCH -> builder.batchSize(batching.size()).batchLinger(batching.linger());
      case ASYNC -> builder.asyncTimeout(asyncTimeout);
      case MESSAGE -> {}
    }
    return builder;
  }

  @Override
  public String toString() {
    return handler.getClass().getName() + " (" + kind.type().getSimpleName() + ")";
  }
}
