package dev.siglo.consumer;

import java.util.List;

/**
 * What users implement when several messages are cheaper handled together (a database batch insert,
 * a bulk index, a payments batch): handles a batch of decoded messages and says how each one ended.
 *
 * <p><b>What the batch holds.</b> The runtime gathers up to its {@code batchSize} messages (waiting
 * at most {@code batchLinger} for more) and claims their keys together, in one {@link
 * dev.siglo.consumer.store.IdempotencyStore#claimAll} call. The handler sees only the messages
 * whose claim it holds: a duplicate of a completed key gets its cached outcome, a key in progress
 * elsewhere (or twice in one batch) waits and settles after the batch, and poison (undecodable,
 * missing or invalid key) goes to the dead letters, all without the handler. A batch never holds
 * two messages of one lane (a key or partition with Kafka's ordering, an SQS FIFO group), so
 * per-lane order holds as with {@link MessageHandler}.
 *
 * <p><b>Each message on its own.</b> The returned {@link BatchResult} gives each item a result: a
 * success value is recorded (after every message hook passed for that message), a failure is
 * classified like a thrown exception, so a permanent one is cached as that message's decline and a
 * transient one releases that message's claim and retries it (in process, then by redelivery, then
 * the dead letters), while the batch's other messages complete. An item the result does not mention
 * succeeded with a {@code null} result. An exception thrown by {@code handle} fails every message
 * of the batch with it: classified once, applied to each. The completions are written together, in
 * one {@link dev.siglo.consumer.store.IdempotencyStore#completeAll} call, and a message is
 * acknowledged (offset committed, SQS message deleted) only after its own completion.
 *
 * <p><b>Retries.</b> The messages that failed transiently are retried in process together, as a
 * smaller batch, after the retry backoff; a message is never handed to the handler again once it
 * completed.
 *
 * <p><b>Steps</b> run per message through {@link BatchItem#context()}, keyed under that message's
 * key. Handlers of different batches may run concurrently and must be thread-safe.
 *
 * @param <T> the decoded payload type
 */
@FunctionalInterface
public interface BatchMessageHandler<T> {

  /**
   * Handles a batch.
   *
   * @param batch the messages, at least one, in the order they were received; the list is
   *     unmodifiable
   * @return how each message ended; {@code null} counts as {@link BatchResult#allSucceeded()}
   * @throws Exception a failure of the whole batch, classified and applied to every message
   */
  BatchResult handle(List<BatchItem<T>> batch) throws Exception;
}
