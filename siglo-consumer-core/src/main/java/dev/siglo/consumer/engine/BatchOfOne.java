package dev.siglo.consumer.engine;

import dev.siglo.consumer.BatchItem;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.BatchResult;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import java.util.List;

/**
 * A {@link BatchMessageHandler} as a one-message handler: the message is a batch of one, and its
 * item's result is the handler's (a reported failure is thrown). What {@link
 * MessageProcessor#process} runs when the configuration holds a batch handler.
 *
 * @param <T> the decoded payload type
 */
final class BatchOfOne<T> implements MessageHandler<T> {
  private final BatchMessageHandler<T> handler;

  BatchOfOne(BatchMessageHandler<T> handler) {
    this.handler = handler;
  }

  @Override
  public Object handle(T value, HandlerContext context) throws Exception {
    BatchItem<T> item = BatchItem.of(value, context);
    BatchResult result = handler.handle(List.of(item));
    if (result == null) {
      return null;
    }
    BatchResults.requireOnlyItemsOf(result, List.of(item));
    BatchResult.ItemResult r = result.resultOf(item);
    if (r instanceof BatchResult.ItemResult.Failure failure) {
      throw failure.cause();
    }
    return ((BatchResult.ItemResult.Success) r).value();
  }
}
