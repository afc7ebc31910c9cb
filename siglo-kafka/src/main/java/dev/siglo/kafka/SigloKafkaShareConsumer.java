package dev.siglo.kafka;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.Batching;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.kafka.internal.SharePollLoop;
import dev.siglo.kafka.internal.ShareRuntimeConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A Kafka share-group consumer (KIP-932, "queues for Kafka") with exactly-once effects: each record
 * goes through Siglo's engine (claim, handler and steps, completion or decline) and is acknowledged
 * only after it reached atomic completion.
 *
 * <p><b>Acknowledgements.</b> The consumer uses explicit acknowledgement: a processed record, a
 * duplicate and a cached decline are {@code ACCEPT}ed; a dead letter is published to the
 * dead-letter topic (default {@code <topic>-dlt}, same headers as {@link SigloKafkaConsumer}) and
 * then {@code ACCEPT}ed, or {@code REJECT}ed when the topic's dead-letter topic is {@code null}; a
 * transient failure is retried in process, then the record is held for its redelivery backoff and
 * {@code RELEASE}d, so the broker delivers it again to any member. A failure of Siglo's own (the
 * store unavailable) spends none of the record's broker deliveries: the record is held and run
 * again here once intake reopens. Records whose handler outlives the acquisition lock are renewed
 * ({@code RENEW}) a third of the lock after their acquisition, while the engine renews the claim's
 * lease.
 *
 * <p><b>Deliveries.</b> {@code maxDeliveries} is counted by the broker ({@code deliveryCount}), so
 * it holds across crashes with no state of Siglo's; it may not exceed the group's {@code
 * share.delivery.count.limit} (checked at start), because the broker archives a record past its
 * limit without a dead letter.
 *
 * <p><b>Order and concurrency.</b> Share groups promise no order: the records of one partition run
 * in parallel on {@code concurrency} workers, across as many consumers as the group has, whatever
 * the partition count. A consumer holds at most {@code maxInFlight} acquired records ({@code
 * max.poll.records} in the {@code record_limit} acquire mode), and fetches more once those are
 * acknowledged.
 *
 * <p>{@link #start()} returns a future that completes when the consumer stops: normally after
 * {@link #close(Duration)}, which releases unstarted records at once and gives running handlers the
 * timeout; exceptionally on a fatal error (missing topic, a group configuration that does not fit,
 * a broken store configuration). Thread-safe; {@code close} is idempotent.
 *
 * @param <T> the decoded payload type
 */
public final class SigloKafkaShareConsumer<T> implements AutoCloseable {
  /** Default {@link Builder#concurrency}: worker threads. */
  public static final int DEFAULT_CONCURRENCY = 16;

  /** Default {@link Builder#maxInFlight} per worker. */
  public static final int DEFAULT_IN_FLIGHT_PER_WORKER = 8;

  /** Default {@link Builder#autoOffsetReset}: a new share group starts at the earliest record. */
  public static final String DEFAULT_AUTO_OFFSET_RESET = "earliest";

  private static final Set<String> MANAGED =
      Set.of(
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
          "share.acknowledgement.mode");

  private final ShareRuntimeConfig settings;
  private final MessageProcessor processor;
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final boolean shutdownHook;
  private SharePollLoop loop;
  private Thread pollThread;
  private boolean closed;

  private SigloKafkaShareConsumer(
      ShareRuntimeConfig settings, MessageProcessor processor, boolean shutdownHook) {
    this.settings = settings;
    this.processor = processor;
    this.shutdownHook = shutdownHook;
  }

  /**
   * @param decoder decodes record values for the handler
   * @param handler the handler
   * @param <T> the decoded payload type
   * @return a builder
   */
  public static <T> Builder<T> builder(
      PayloadDecoder<T> decoder, MessageHandler<? super T> handler) {
    return new Builder<>(decoder, handler);
  }

  /**
   * A builder for an asynchronous handler: each message's claim is held until its stage completes
   * (up to {@code asyncTimeout}), and the next message of its lane starts only then (see {@link
   * AsyncMessageHandler}).
   *
   * @param decoder decodes record values for the handler
   * @param handler the asynchronous handler
   * @param <T> the decoded payload type
   * @return a builder
   */
  public static <T> Builder<T> asyncBuilder(
      PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
    return new Builder<>(decoder, handler);
  }

  /**
   * A builder for a batch handler: each worker takes up to {@code batchSize} of the acquired
   * records at once (a share group's poll brings its records together, so a batch takes what is
   * there and does not linger); each record is acknowledged on its own after its own completion
   * (see {@link BatchMessageHandler}). {@code concurrency} is the number of batches running at
   * once; unless set, {@code maxInFlight} holds two batches or {@value
   * #DEFAULT_IN_FLIGHT_PER_WORKER} records per worker, whichever is more.
   *
   * @param decoder decodes record values for the handler
   * @param handler the batch handler
   * @param <T> the decoded payload type
   * @return a builder
   */
  public static <T> Builder<T> batchBuilder(
      PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
    return new Builder<>(decoder, handler);
  }

  /**
   * Starts polling on a new thread.
   *
   * @return a future completing when the consumer stops (exceptionally on a fatal error)
   * @throws IllegalStateException when already started or closed
   */
  public synchronized CompletableFuture<Void> start() {
    if (loop != null || closed) {
      throw new IllegalStateException("the consumer was already started");
    }
    ExecutorService workers =
        settings
            .workerThreads()
            .executor("siglo-kafka-share-worker-" + settings.groupId(), settings.concurrency());
    loop = new SharePollLoop(settings, processor, workers, termination);
    pollThread = new Thread(loop, "siglo-kafka-share-poll-" + settings.groupId());
    pollThread.start();
    if (shutdownHook) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> close(SigloKafkaConsumer.DEFAULT_CLOSE_TIMEOUT),
                  "siglo-kafka-share-shutdown-" + settings.groupId()));
    }
    return termination;
  }

  /**
   * @return the future completing when the consumer stops
   */
  public CompletableFuture<Void> termination() {
    return termination;
  }

  /**
   * @return whether the consumer was started and has not stopped
   */
  public boolean isRunning() {
    return loop != null && !termination.isDone();
  }

  /**
   * @return acknowledgements the broker refused or that were lost since the start (each one's
   *     record is delivered again and answered from the store)
   */
  public long failedAcknowledgements() {
    SharePollLoop l;
    synchronized (this) {
      l = loop;
    }
    return l == null ? 0 : l.failedAcknowledgements();
  }

  /**
   * Stops: unstarted records are released at once, running handlers get up to {@code timeout} to
   * finish and are acknowledged, the consumer leaves its group. Idempotent.
   *
   * @param timeout the longest wait for running handlers
   */
  public void close(Duration timeout) {
    SharePollLoop running;
    Thread thread;
    synchronized (this) {
      closed = true;
      running = loop;
      thread = pollThread;
    }
    if (running == null) {
      termination.complete(null);
      return;
    }
    running.requestStop(timeout);
    if (thread != Thread.currentThread()) {
      try {
        thread.join(timeout.plusSeconds(15).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Closes with a 30 second timeout. */
  @Override
  public void close() {
    close(SigloKafkaConsumer.DEFAULT_CLOSE_TIMEOUT);
  }

  @Override
  public String toString() {
    return "SigloKafkaShareConsumer[group="
        + settings.groupId()
        + ", topics="
        + settings.topics()
        + ", concurrency="
        + settings.concurrency()
        + "]";
  }

  /**
   * Builds a {@link SigloKafkaShareConsumer}; every setter validates its argument and {@link
   * #build()} checks the combination.
   *
   * @param <T> the decoded payload type
   */
  public static final class Builder<T> extends KafkaBuilder<T, Builder<T>> {
    private Integer maxInFlight;
    private String autoOffsetReset = DEFAULT_AUTO_OFFSET_RESET;

    private Builder(PayloadDecoder<T> decoder, MessageHandler<? super T> handler) {
      super(decoder, handler);
    }

    private Builder(PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
      super(decoder, handler);
    }

    private Builder(PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
      super(decoder, handler);
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    /**
     * @param maxInFlight the most records acquired at once (the poll size; default {@value
     *     #DEFAULT_IN_FLIGHT_PER_WORKER} per worker): each one's acquisition lock runs from its
     *     poll, so a smaller poll keeps records from waiting locked for a worker
     * @return this builder
     */
    public Builder<T> maxInFlight(int maxInFlight) {
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be >= 1, was " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * @param reset the {@code share.auto.offset.reset} Siglo sets on the share group at start when
     *     the group has none of its own ({@code earliest} by default, so a new group misses no
     *     record published before its first member joined; {@code latest}, {@code by_duration:<ISO
     *     duration>}), or {@code null} to leave the group's configuration alone
     * @return this builder
     */
    public Builder<T> autoOffsetReset(String reset) {
      this.autoOffsetReset = reset == null ? null : nonBlank(reset, "autoOffsetReset");
      return this;
    }

    /**
     * @return the consumer, not started
     * @throws SigloConfigurationException naming the setting when the combination is invalid
     */
    public SigloKafkaShareConsumer<T> build() {
      Map<String, Object> client = connection();
      if (topics.isEmpty()) {
        throw new SigloConfigurationException("topics are required");
      }
      for (String k : MANAGED) {
        if (properties.containsKey(k)) {
          throw new SigloConfigurationException(
              k
                  + " cannot be set: Siglo acknowledges each record explicitly after its atomic"
                  + " completion, reads records as bytes for the PayloadDecoder, and sizes the poll"
                  + " with maxInFlight");
        }
      }
      Batching batching = batching();
      int inFlight = batching.maxInFlight(maxInFlight, concurrency * DEFAULT_IN_FLIGHT_PER_WORKER);
      client.put("share.acknowledgement.mode", "explicit");
      client.putIfAbsent("share.acquire.mode", "record_limit");
      client.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, inFlight);
      client.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "siglo-share-" + groupId);
      ShareRuntimeConfig settings =
          new ShareRuntimeConfig(
              Map.copyOf(client),
              groupId,
              topics,
              concurrency,
              retryConfig().maxDeliveries(),
              topicCheckTimeout,
              deadLetterTopic,
              deadLetterDeclines,
              createDeadLetterTopics,
              SigloKafkaConsumer.DEAD_LETTER_TIMEOUT,
              autoOffsetReset,
              metricsOrNull(),
              workerThreads(),
              batching);
      return new SigloKafkaShareConsumer<>(settings, processor(), shutdownHook);
    }
  }
}
