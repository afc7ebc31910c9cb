package dev.siglo.consumer;

import java.util.concurrent.CompletionStage;

/**
 * What users implement when their handler calls non-blocking clients: handles one decoded message
 * and returns a stage that completes with the result (or a failure). Siglo holds the message's
 * idempotency claim, renewing its lease, until the stage completes, then treats its outcome exactly
 * like a synchronous {@link MessageHandler}'s: a value is recorded (after every message hook
 * passed) and the message acknowledged; a failure is classified, a permanent one cached as a
 * decline, a transient one releases the claim and is retried.
 *
 * <p><b>Order.</b> The next message of the same lane (a Kafka partition, or a key with {@code KEY}
 * ordering; an SQS FIFO group; a share group promises no order) starts only after this stage
 * completed, however the stages of different lanes complete.
 *
 * <p><b>Timeout.</b> A stage that has not completed within the consumer's {@code asyncTimeout}
 * (default one minute, counted from the call) counts as a transient failure: the claim is released
 * and the message is retried. Siglo cancels the stage ({@link
 * java.util.concurrent.CompletableFuture#cancel}), which stops nothing the stage's own code
 * started: make the work behind it bounded, since the lane's next message (or this one's retry) may
 * start while it still runs.
 *
 * <p><b>Steps.</b> {@link HandlerContext#run} blocks its calling thread and may be called from any
 * thread, the stage's continuations included (one step at a time per message), but only until the
 * stage completes: afterwards the claim is gone and the call fails with {@link
 * IllegalStateException}. The SLF4J MDC and the handler's tracing span are current only on the
 * thread that called {@link #handle}.
 *
 * <p><b>Threads.</b> {@link #handle} runs on a worker thread, which waits for the stage; handlers
 * of different lanes run concurrently and must be thread-safe. To keep thousands of stages in
 * flight, raise the concurrency and run the workers on virtual threads ({@link
 * WorkerThreads#virtualThreads()}, JDK 21+).
 *
 * @param <T> the decoded payload type
 */
@FunctionalInterface
public interface AsyncMessageHandler<T> {

  /**
   * Starts handling one message.
   *
   * @param value the decoded payload
   * @param context the message, its key and claim, and the step runner
   * @return the stage completing with the result to cache for duplicates (encoded as JSON, may be
   *     {@code null}) or with the failure; a {@code null} stage counts as completed with {@code
   *     null}
   * @throws Exception a failure before any stage existed, classified like the stage's failure
   */
  CompletionStage<?> handle(T value, HandlerContext context) throws Exception;
}
