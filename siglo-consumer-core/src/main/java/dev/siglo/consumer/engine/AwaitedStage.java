package dev.siglo.consumer.engine;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.HandlerContext;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.error.TransientException;
import dev.siglo.consumer.support.Time;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An {@link AsyncMessageHandler} as the engine runs it: the worker calls it, then waits for its
 * stage (on the injected {@link Time}, up to the async timeout), so the claim stays held and
 * renewed and the lane stays busy until the stage completed; the stage's value is the handler's
 * result, its failure the handler's exception. A stage past the timeout is cancelled and fails
 * transiently.
 *
 * @param <T> the decoded payload type
 */
final class AwaitedStage<T> implements MessageHandler<T> {
  /** How often a wait on injected (not system) time looks at the clock again. */
  private static final long MANUAL_TIME_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final AsyncMessageHandler<? super T> handler;
  private final Duration timeout;
  private final Time time;

  AwaitedStage(AsyncMessageHandler<? super T> handler, Duration timeout, Time time) {
    this.handler = handler;
    this.timeout = timeout;
    this.time = time;
  }

  @Override
  public Object handle(T value, HandlerContext context) throws Exception {
    long deadline = time.nanoTime() + timeout.toNanos(); // from the call: it may block too
    CompletionStage<?> stage = handler.handle(value, context);
    if (stage == null) {
      return null;
    }
    CompletableFuture<?> future = stage.toCompletableFuture();
    while (true) {
      long left = deadline - time.nanoTime();
      if (left <= 0) {
        future.cancel(true);
        throw new TransientException(
            "the async handler's stage did not complete within "
                + timeout
                + " (asyncTimeout); it was cancelled and the message is retried");
      }
      long wait = time == Time.SYSTEM ? left : Math.min(left, MANUAL_TIME_SLICE_NANOS);
      try {
        return future.get(wait, TimeUnit.NANOSECONDS);
      } catch (TimeoutException notYet) {
        // look at the clock again
      } catch (ExecutionException failed) {
        throw rethrown(failed.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw e;
      }
    }
  }

  /** The stage's own failure, unwrapped from the completion wrappers composition adds. */
  private static Exception rethrown(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t instanceof Exception e) {
      return e;
    }
    return new ExecutionException(t);
  }
}
