package dev.siglo.kafka;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.support.Durations;
import dev.siglo.kafka.internal.KafkaRuntimeConfig;
import dev.siglo.kafka.internal.PollLoop;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A Kafka consumer with exactly-once effects: each record goes through Siglo's engine (claim,
 * handler and steps, completion or decline) and its offset is committed only when every record
 * below it reached atomic completion (completed, declined, or dead-lettered).
 *
 * <p><b>Threads.</b> One named thread owns the {@code KafkaConsumer}; handlers run on {@code
 * concurrency} named worker threads, ordered per {@link Ordering}. Polling continues while handlers
 * run (fetching pauses when too much is buffered), so a slow handler never exceeds {@code
 * max.poll.interval.ms}. A transient failure is retried in process, then later with backoff while
 * its lane (key or partition) is held and the commit point stays behind it; after the maximum
 * number of deliveries it goes to the dead-letter topic (default {@code <topic>-dlt}). Offsets are
 * committed asynchronously every commit interval and synchronously on revoke and close.
 *
 * <p>{@link #start()} returns a future that completes when the consumer stops: normally after
 * {@link #close(Duration)}, exceptionally on a fatal error (missing topic, authorization, a broken
 * store configuration). Thread-safe; {@code close} is idempotent.
 *
 * @param <T> the decoded payload type
 */
public final class SigloKafkaConsumer<T> implements AutoCloseable {
  /** Default {@link Builder#ordering}. */
  public static final Ordering DEFAULT_ORDERING = Ordering.KEY;

  /** Default {@link Builder#concurrency}: worker threads. */
  public static final int DEFAULT_CONCURRENCY = 16;

  /**
   * Default {@link Builder#maxBuffered}: records held before fetching pauses; raised to the
   * concurrency when that is larger and {@code maxBuffered} was not set.
   */
  public static final int DEFAULT_MAX_BUFFERED = 10_000;

  /**
   * Default {@link Builder#commitInterval}: 100 ms, so work is durable about a tenth of a second
   * after it completed (a commit goes out only when a commit point moved; an idle consumer sends
   * none).
   */
  public static final Duration DEFAULT_COMMIT_INTERVAL = Duration.ofMillis(100);

  /** Default {@link Builder#rebalanceTimeout}. */
  public static final Duration DEFAULT_REBALANCE_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link Builder#topicCheckTimeout}. */
  public static final Duration DEFAULT_TOPIC_CHECK_TIMEOUT = Duration.ofSeconds(30);

  /** The default dead-letter topic of a topic is its name with this suffix. */
  public static final String DEFAULT_DEAD_LETTER_SUFFIX = "-dlt";

  /** How long a dead-letter publish may take before the record is retried. */
  static final Duration DEAD_LETTER_TIMEOUT = Duration.ofSeconds(30);

  /** How long {@link #close()} and the shutdown hook wait for running handlers. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaRuntimeConfig settings;
  private final MessageProcessor processor;
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final boolean shutdownHook;
  private PollLoop loop;
  private Thread pollThread;
  private boolean closed;

  private SigloKafkaConsumer(
      KafkaRuntimeConfig settings, MessageProcessor processor, boolean shutdownHook) {
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
   * A builder for a batch handler: workers take batches of up to {@code batchSize} ready records
   * (waiting up to {@code batchLinger} for a batch to fill), at most one record of each lane per
   * batch, so a key's (or, with {@link Ordering#PARTITION}, a partition's) records still run one
   * after another in offset order; each record's offset is committed only after its own completion
   * (see {@link BatchMessageHandler}). {@code concurrency} is the number of batches running at
   * once.
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
            .executor("siglo-kafka-worker-" + settings.groupId(), settings.concurrency());
    loop = new PollLoop(settings, processor, workers, termination);
    pollThread = new Thread(loop, "siglo-kafka-poll-" + settings.groupId());
    pollThread.start();
    if (shutdownHook) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> close(DEFAULT_CLOSE_TIMEOUT),
                  "siglo-kafka-shutdown-" + settings.groupId()));
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
   * Stops: no new records are dispatched, running handlers get up to {@code timeout} to finish, the
   * completed prefix is committed, the consumer leaves its group. Idempotent.
   *
   * @param timeout the longest wait for running handlers
   */
  public void close(Duration timeout) {
    PollLoop running;
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
    close(DEFAULT_CLOSE_TIMEOUT);
  }

  /**
   * Builds a {@link SigloKafkaConsumer}; every setter validates its argument and {@link #build()}
   * checks the combination.
   *
   * @param <T> the decoded payload type
   */
  public static final class Builder<T> extends KafkaBuilder<T, Builder<T>> {
    private Pattern pattern;
    private Ordering ordering = DEFAULT_ORDERING;
    private Integer maxBuffered;
    private Duration commitInterval = DEFAULT_COMMIT_INTERVAL;
    private Duration rebalanceTimeout = DEFAULT_REBALANCE_TIMEOUT;

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
     * @param pattern subscribe to every topic matching it (instead of {@link #topics})
     * @return this builder
     */
    public Builder<T> topicPattern(Pattern pattern) {
      this.pattern = Objects.requireNonNull(pattern, "pattern");
      return this;
    }

    /**
     * @param ordering KEY (default), PARTITION or UNORDERED
     * @return this builder
     */
    public Builder<T> ordering(Ordering ordering) {
      this.ordering = Objects.requireNonNull(ordering, "ordering");
      return this;
    }

    /**
     * @param maxBuffered records held (queued and running) before fetching pauses; at least 1, and
     *     at least the concurrency ({@link #build()} rejects less)
     * @return this builder
     */
    public Builder<T> maxBuffered(int maxBuffered) {
      if (maxBuffered < 1) {
        throw new IllegalArgumentException("maxBuffered must be at least 1, was " + maxBuffered);
      }
      this.maxBuffered = maxBuffered;
      return this;
    }

    /**
     * @param commitInterval how often completed offsets are committed, positive (default {@link
     *     #DEFAULT_COMMIT_INTERVAL}); longer sends fewer commits, and leaves more completed records
     *     to settle as duplicates after a crash
     * @return this builder
     */
    public Builder<T> commitInterval(Duration commitInterval) {
      this.commitInterval = Durations.requirePositive(commitInterval, "commitInterval");
      return this;
    }

    /**
     * @param rebalanceTimeout the bounded wait for running records of revoked partitions
     * @return this builder
     */
    public Builder<T> rebalanceTimeout(Duration rebalanceTimeout) {
      this.rebalanceTimeout = Durations.requirePositive(rebalanceTimeout, "rebalanceTimeout");
      return this;
    }

    /**
     * @return the consumer, not started
     * @throws SigloConfigurationException naming the setting when the combination is invalid
     */
    public SigloKafkaConsumer<T> build() {
      Map<String, Object> client = connection();
      if (topics.isEmpty() == (pattern == null)) {
        throw new SigloConfigurationException("give either topics or a topicPattern");
      }
      Object autoCommit = properties.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
      if (autoCommit != null && Boolean.parseBoolean(autoCommit.toString())) {
        throw new SigloConfigurationException(
            "enable.auto.commit=true is not allowed: Siglo commits an offset only after every record"
                + " below it reached atomic completion");
      }
      for (String k :
          List.of(
              ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
              ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
        if (properties.containsKey(k)) {
          throw new SigloConfigurationException(
              k
                  + " cannot be set: records are read as bytes and decoded by the PayloadDecoder, so a"
                  + " decoding failure becomes a dead letter instead of stopping the consumer");
        }
      }
      client.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      client.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      client.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "siglo-" + groupId);
      int buffered =
          maxBuffered != null ? maxBuffered : Math.max(DEFAULT_MAX_BUFFERED, concurrency);
      if (buffered < concurrency) {
        throw new SigloConfigurationException(
            "maxBuffered ("
                + buffered
                + ") must be at least concurrency ("
                + concurrency
                + "): fewer buffered records than workers would leave workers idle");
      }
      KafkaRuntimeConfig settings =
          new KafkaRuntimeConfig(
              Map.copyOf(client),
              groupId,
              topics,
              pattern,
              ordering,
              concurrency,
              buffered,
              commitInterval,
              rebalanceTimeout,
              topicCheckTimeout,
              deadLetterTopic,
              deadLetterDeclines,
              createDeadLetterTopics,
              DEAD_LETTER_TIMEOUT,
              metricsOrNull(),
              workerThreads(),
              batching());
      MessageProcessor processor = processor();
      return new SigloKafkaConsumer<>(settings, processor, shutdownHook);
    }
  }

  /**
   * @return where the key is unless the builder says otherwise: the {@code idempotency-key} header,
   *     else the record key
   */
  public static IdempotencyKeyExtractor<Object> defaultKeyExtractor() {
    return KeyExtractors.firstPresent(
        KeyExtractors.header(MessageProcessorConfig.DEFAULT_KEY_HEADER), KeyExtractors.recordKey());
  }

  @Override
  public String toString() {
    return "SigloKafkaConsumer[group="
        + settings.groupId()
        + ", ordering="
        + settings.ordering()
        + ", concurrency="
        + settings.concurrency()
        + "]";
  }
}
