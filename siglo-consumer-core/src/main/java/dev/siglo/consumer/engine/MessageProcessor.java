package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;

/**
 * The broker-neutral engine: processes one delivered message and says what the runtime must do with
 * it.
 *
 * <ol>
 *   <li>Decode the payload and extract the key; failures are poison ({@link
 *       Disposition.DeadLetter}).
 *   <li>Claim the key. {@code COMPLETED}: a duplicate, acknowledged with the cached outcome (a
 *       cached decline is replayed, not re-executed). {@code IN_PROGRESS}: wait and settle, polling
 *       the store up to the settle timeout, then {@code IdempotencyConflictException} (transient).
 *   <li>{@code CLAIMED}: run the handler (and its steps), then every {@code onAfter} hook, then
 *       {@code complete}; the record becomes {@code COMPLETED} only after every hook passed.
 *   <li>A failure is classified. Permanent: the decline is cached and the message acknowledged.
 *       Transient: the claim is released, retried in process (resilience4j {@code Retry},
 *       exponential backoff with jitter), then {@link Disposition.NackRetry}, and after the maximum
 *       number of deliveries {@link Disposition.DeadLetter} without caching a decline.
 *   <li>If {@code complete} fails because the store is unavailable after the handler succeeded, the
 *       completion is retried (with backoff) until it succeeds or the thread is interrupted; the
 *       message is not acknowledged before.
 * </ol>
 *
 * <p>While a handler or step holds a claim, the processor renews the claim's lease (a third of the
 * lease after the claim or its last renewal), so only a holder that died or froze past its lease is
 * taken over. A failure caused by the store being unavailable, or a duplicate that waited on a live
 * holder, never counts toward {@code maxDeliveries} and never dead-letters ({@link
 * Disposition.NackRetry#counted()} is false); a store outage also closes the {@link #intake()} gate
 * until a probe finds the store again.
 *
 * <p>Thread-safe: runtimes call {@link #process} from many worker threads at once. It blocks the
 * calling thread for the handler, in-process backoffs and settling. It runs two named daemon
 * threads of its own, one renewing leases and one probing the store while it is down, until {@link
 * #close()}.
 */
public interface MessageProcessor extends AutoCloseable {

  /**
   * Processes one message.
   *
   * @param message the delivered message
   * @return what to do with it; never {@code null}
   */
  Disposition process(Message message);

  /** What a runtime does with a disposition (acknowledge, publish the dead letter). */
  @FunctionalInterface
  interface FollowUp {
    /**
     * @param disposition the message's disposition
     * @throws Exception when the follow-up fails (the runtime handles it)
     */
    void apply(Disposition disposition) throws Exception;
  }

  /**
   * Processes one message, then runs the runtime's follow-up while the message is still the current
   * one: when tracing, inside the message's span, so that a dead-letter publication ({@link
   * #deadLettering}) is a child of it. The default processes, then follows up.
   *
   * @param message the delivered message
   * @param followUp what the runtime does with the disposition
   * @return the disposition
   * @throws Exception what the follow-up threw
   */
  default Disposition process(Message message, FollowUp followUp) throws Exception {
    Disposition d = process(message);
    followUp.apply(d);
    return d;
  }

  /**
   * What a runtime does with one message's disposition in a batch: acknowledges, publishes the dead
   * letter, and answers with the disposition that stands (a retry when the publication failed).
   * Handles its own failures: must not throw.
   */
  @FunctionalInterface
  interface BatchFollowUp {
    /**
     * @param index the message's position in the batch
     * @param disposition its disposition
     * @return the disposition that stands
     */
    Disposition apply(int index, Disposition disposition);
  }

  /**
   * Processes a batch of messages, then runs the runtime's follow-up for each. With a {@link
   * dev.siglo.consumer.BatchMessageHandler} the keys are claimed together (one {@code claimAll}),
   * the handler runs once for the claimed messages, and their outcomes are completed together (one
   * {@code completeAll}); each message still ends on its own (processed, duplicate, declined,
   * retried or dead-lettered), exactly as {@link #process} would have ended it. When tracing, one
   * CONSUMER span covers the batch, linked to each message's producer, and the follow-ups run
   * inside it. The default processes the messages one after another.
   *
   * @param messages the messages, at least one; a runtime puts at most one message of each lane
   *     (key, partition, FIFO group) in one batch
   * @param followUp what the runtime does with each disposition
   * @return the dispositions that stand, one per message, in order
   */
  default java.util.List<Disposition> processAll(
      java.util.List<Message> messages, BatchFollowUp followUp) {
    java.util.List<Disposition> out = new java.util.ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      out.add(followUp.apply(i, process(messages.get(i))));
    }
    return out;
  }

  /**
   * Publishes a dead letter; when tracing, as a PRODUCER span ({@code <destination> publish}) child
   * of the current one. The default just publishes.
   *
   * @param destination the dead-letter topic or queue
   * @param publish the publication
   * @throws Exception what the publication threw
   */
  default void deadLettering(String destination, java.util.concurrent.Callable<?> publish)
      throws Exception {
    publish.call();
  }

  /**
   * The gate a runtime consults before taking new work: closed while the store is unavailable or a
   * pause condition holds. The default is always open.
   *
   * @return the gate
   */
  default IntakeGate intake() {
    return IntakeGate.OPEN;
  }

  /**
   * Stops the processor's background work (lease renewal, store probes). Call it once the runtime
   * has stopped calling {@link #process}. Idempotent. The default does nothing.
   */
  @Override
  default void close() {}

  /**
   * @param config the configuration
   * @param <T> the decoded payload type
   * @return a processor
   */
  static <T> MessageProcessor of(MessageProcessorConfig<T> config) {
    return new DefaultMessageProcessor<>(config);
  }
}
