package dev.siglo.sqs;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.Batching;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.support.Durations;
import dev.siglo.consumer.support.Time;
import dev.siglo.sqs.internal.SqsRuntime;
import dev.siglo.sqs.internal.SqsRuntimeConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * An SQS consumer with exactly-once effects: each message goes through Siglo's engine and is
 * deleted only after atomic completion (completed, declined, or dead-lettered).
 *
 * <p>Pollers long-poll (all message and system attributes, up to ten at a time) while fewer than
 * {@code maxInFlight} messages are held; workers run the handler, FIFO groups one message at a time
 * in order. Ack = delete, batched by ten ({@code DeleteMessageBatch}, at once on FIFO queues). A
 * transient failure is retried in process, then nacked: its visibility is set to a backoff computed
 * from {@code ApproximateReceiveCount}; a FIFO group waits behind it. Past the maximum deliveries
 * the message goes to the dead-letter queue Siglo was given (with reason attributes), or, without
 * one, back to the queue so its redrive policy moves it. A handler running past a fraction of the
 * visibility timeout gets the visibility extended (claim leases are renewed by the engine, a third
 * of the lease after the claim). While the idempotency store is unavailable, or a pause condition
 * holds, no message is received and held, unstarted ones are made visible again. {@link #close}
 * stops receiving, lets running handlers finish, releases unstarted messages at once and flushes
 * deletes. Thread-safe; {@code close} is idempotent.
 *
 * @param <T> the decoded payload type
 */
public final class SigloSqsConsumer<T> implements AutoCloseable {
  /** Default receiving threads ({@link Builder#threads}). */
  public static final int DEFAULT_POLLERS = 1;

  /** Default worker threads ({@link Builder#threads}). */
  public static final int DEFAULT_CONCURRENCY = 16;

  /** Default messages held at most, received and not yet finished ({@link Builder#threads}). */
  public static final int DEFAULT_MAX_IN_FLIGHT = 64;

  /** Default long-polling wait ({@link Builder#waitTime}), the most SQS allows. */
  public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(20);

  /** Default heartbeat fraction of the visibility timeout ({@link Builder#heartbeat}). */
  public static final double DEFAULT_HEARTBEAT_FRACTION = 0.5;

  /** Default wait of a delete for its batch of ten ({@link Builder#deleteInterval}). */
  public static final Duration DEFAULT_DELETE_INTERVAL = Duration.ofMillis(100);

  /** How long {@link #close()} waits for running handlers. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final SqsClient sqs;
  private final SqsRuntimeConfig config;
  private final MessageProcessor processor;
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private SqsRuntime runtime;
  private boolean closed;

  private SigloSqsConsumer(SqsClient sqs, SqsRuntimeConfig config, MessageProcessor processor) {
    this.sqs = sqs;
    this.config = config;
    this.processor = processor;
  }

  /**
   * @param decoder decodes message bodies for the handler
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
   * @param decoder decodes message bodies for the handler
   * @param handler the asynchronous handler
   * @param <T> the decoded payload type
   * @return a builder
   */
  public static <T> Builder<T> asyncBuilder(
      PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
    return new Builder<>(decoder, handler);
  }

  /**
   * A builder for a batch handler: {@code concurrency} batch workers each take up to {@code
   * batchSize} received messages (waiting up to {@code batchLinger} for a batch to fill), at most
   * one message of each FIFO group per batch; each message is deleted, made visible again or sent
   * to the dead-letter queue on its own, after its own completion (see {@link
   * BatchMessageHandler}). Unless {@code threads} says otherwise, {@code maxInFlight} is {@link
   * #DEFAULT_MAX_IN_FLIGHT} or two batches, whichever is more.
   *
   * @param decoder decodes message bodies for the handler
   * @param handler the batch handler
   * @param <T> the decoded payload type
   * @return a builder
   */
  public static <T> Builder<T> batchBuilder(
      PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
    return new Builder<>(decoder, handler);
  }

  /**
   * Reads the queue's attributes and starts the pollers.
   *
   * @return a future completing when the consumer stops (exceptionally on a fatal error: the queue
   *     does not exist, access denied, a broken store configuration)
   */
  public synchronized CompletableFuture<Void> start() {
    if (runtime != null || closed) {
      throw new IllegalStateException("the consumer was already started");
    }
    Map<QueueAttributeName, String> attributes;
    try {
      attributes =
          sqs.getQueueAttributes(
                  b -> b.queueUrl(config.queueUrl()).attributeNames(QueueAttributeName.ALL))
              .attributes();
    } catch (QueueDoesNotExistException e) {
      termination.completeExceptionally(
          new SigloConfigurationException("queue " + config.queueUrl() + " does not exist", e));
      return termination;
    } catch (SqsException e) {
      termination.completeExceptionally(
          e.statusCode() == 403
              ? new SigloConfigurationException(
                  "access to queue " + config.queueUrl() + " denied: " + e.getMessage(), e)
              : e);
      return termination;
    }
    SigloConfigurationException deadLetterQueue = checkDeadLetterQueue();
    if (deadLetterQueue != null) {
      termination.completeExceptionally(deadLetterQueue);
      return termination;
    }
    boolean fifo =
        Boolean.parseBoolean(attributes.getOrDefault(QueueAttributeName.FIFO_QUEUE, "false"));
    Duration visibility =
        Duration.ofSeconds(
            Long.parseLong(attributes.getOrDefault(QueueAttributeName.VISIBILITY_TIMEOUT, "30")));
    SqsRuntimeConfig settings = config.forQueue(fifo, visibility);
    runtime =
        new SqsRuntime(
            sqs, settings, queueNameOf(config.queueUrl()), processor, termination, Time.SYSTEM);
    runtime.start();
    return termination;
  }

  /**
   * Siglo's own dead-letter queue, when one is set, must exist before the first message runs: a
   * dead letter that cannot be sent would otherwise be retried until the message's receives run
   * out.
   *
   * @return the configuration error, or null when there is no such queue or it exists
   */
  private SigloConfigurationException checkDeadLetterQueue() {
    String url = config.deadLetterQueueUrl();
    if (url == null) {
      return null;
    }
    try {
      sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.QUEUE_ARN));
      return null;
    } catch (QueueDoesNotExistException e) {
      return new SigloConfigurationException("dead-letter queue " + url + " does not exist", e);
    }
  }

  private static String queueNameOf(String url) {
    return url.substring(url.lastIndexOf('/') + 1);
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
  public synchronized boolean isRunning() {
    return runtime != null && !termination.isDone();
  }

  /**
   * Stops: no new messages are received, running handlers get up to {@code timeout}, unstarted
   * messages become visible at once, pending deletes are flushed. Idempotent.
   *
   * @param timeout the longest wait for running handlers
   */
  public void close(Duration timeout) {
    SqsRuntime r;
    synchronized (this) {
      closed = true;
      r = runtime;
    }
    if (r == null) {
      termination.complete(null);
      return;
    }
    r.stop(timeout);
  }

  /** Closes with a 30 second timeout. */
  @Override
  public void close() {
    close(DEFAULT_CLOSE_TIMEOUT);
  }

  /**
   * Builds a {@link SigloSqsConsumer}; every setter validates its argument.
   *
   * @param <T> the decoded payload type
   */
  public static final class Builder<T> extends ConsumerBuilder<T, Builder<T>> {
    private SqsClient client;
    private String queueUrl;
    private String queueName;
    private int pollers = DEFAULT_POLLERS;
    private int concurrency = DEFAULT_CONCURRENCY;
    private Integer maxInFlight;
    private Duration waitTime = DEFAULT_WAIT_TIME;
    private Duration visibilityTimeout;
    private double heartbeatFraction = DEFAULT_HEARTBEAT_FRACTION;
    private Duration deleteInterval = DEFAULT_DELETE_INTERVAL;
    private String deadLetterQueueUrl;
    private boolean deadLetterDeclines;

    private Builder(PayloadDecoder<T> decoder, MessageHandler<? super T> handler) {
      super(decoder, Objects.requireNonNull(handler, "handler"), defaultKeyExtractor());
    }

    private Builder(PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
      super(decoder, Objects.requireNonNull(handler, "handler"), defaultKeyExtractor());
    }

    private Builder(PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
      super(decoder, Objects.requireNonNull(handler, "handler"), defaultKeyExtractor());
    }

    @Override
    protected Builder<T> self() {
      return this;
    }

    /**
     * @param client the AWS SDK v2 SQS client (owned by the caller)
     * @return this builder
     */
    public Builder<T> client(SqsClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * @param queueUrl the queue URL
     * @return this builder
     */
    public Builder<T> queueUrl(String queueUrl) {
      this.queueUrl = Objects.requireNonNull(queueUrl, "queueUrl");
      return this;
    }

    /**
     * @param queueName the queue name, resolved to its URL when built
     * @return this builder
     */
    public Builder<T> queueName(String queueName) {
      this.queueName = Objects.requireNonNull(queueName, "queueName");
      return this;
    }

    /**
     * @param pollers receiving threads, at least 1
     * @param concurrency worker threads, at least 1
     * @param maxInFlight messages held at most (received and not yet finished), at least {@code
     *     concurrency}
     * @return this builder
     */
    public Builder<T> threads(int pollers, int concurrency, int maxInFlight) {
      if (pollers < 1 || concurrency < 1 || maxInFlight < 1) {
        throw new IllegalArgumentException(
            "pollers, concurrency and maxInFlight must be at least 1");
      }
      if (maxInFlight < concurrency) {
        throw new IllegalArgumentException(
            "maxInFlight ("
                + maxInFlight
                + ") must be at least concurrency ("
                + concurrency
                + "): fewer messages held than workers would leave workers idle");
      }
      this.pollers = pollers;
      this.concurrency = concurrency;
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * @param waitTime long-polling wait, 0 to 20 seconds
     * @return this builder
     */
    public Builder<T> waitTime(Duration waitTime) {
      Objects.requireNonNull(waitTime, "waitTime");
      if (waitTime.isNegative() || waitTime.compareTo(Duration.ofSeconds(20)) > 0) {
        throw new IllegalArgumentException("waitTime must be 0 to 20 seconds, was " + waitTime);
      }
      this.waitTime = waitTime;
      return this;
    }

    /**
     * @param visibilityTimeout the visibility timeout heartbeats extend to (default: the queue's)
     * @param heartbeatFraction extend when a handler has run this fraction of it, 0.1 to 0.9
     * @return this builder
     */
    public Builder<T> heartbeat(Duration visibilityTimeout, double heartbeatFraction) {
      this.visibilityTimeout = Durations.requirePositive(visibilityTimeout, "visibilityTimeout");
      if (!(heartbeatFraction >= 0.1 && heartbeatFraction <= 0.9)) {
        throw new IllegalArgumentException(
            "heartbeatFraction must be 0.1 to 0.9, was " + heartbeatFraction);
      }
      this.heartbeatFraction = heartbeatFraction;
      return this;
    }

    /**
     * @param deleteInterval how long deletes wait to fill a batch of ten, positive
     * @return this builder
     */
    public Builder<T> deleteInterval(Duration deleteInterval) {
      this.deleteInterval = Durations.requirePositive(deleteInterval, "deleteInterval");
      return this;
    }

    /**
     * @param deadLetterQueueUrl send dead letters there (with reason attributes) and delete them;
     *     without it, they go back to the queue for its redrive policy
     * @param copyDeclines also copy permanent declines there
     * @return this builder
     */
    public Builder<T> deadLetterQueue(String deadLetterQueueUrl, boolean copyDeclines) {
      this.deadLetterQueueUrl = Objects.requireNonNull(deadLetterQueueUrl, "deadLetterQueueUrl");
      this.deadLetterDeclines = copyDeclines;
      return this;
    }

    /**
     * @return the consumer, not started
     * @throws SigloConfigurationException when the client or the queue is missing, or the queue
     *     name does not resolve
     */
    public SigloSqsConsumer<T> build() {
      if (client == null) {
        throw new SigloConfigurationException("client is required");
      }
      if ((queueUrl == null) == (queueName == null)) {
        throw new SigloConfigurationException("give either queueUrl or queueName");
      }
      String url = queueUrl;
      if (url == null) {
        try {
          url = client.getQueueUrl(b -> b.queueName(queueName)).queueUrl();
        } catch (QueueDoesNotExistException e) {
          throw new SigloConfigurationException("queue '" + queueName + "' does not exist", e);
        }
      }
      Batching batching = batching();
      int held = batching.maxInFlight(maxInFlight, DEFAULT_MAX_IN_FLIGHT);
      SqsRuntimeConfig config =
          new SqsRuntimeConfig(
              url,
              false,
              pollers,
              concurrency,
              held,
              waitTime,
              visibilityTimeout,
              heartbeatFraction,
              deleteInterval,
              deadLetterQueueUrl,
              deadLetterDeclines,
              metricsOrNull(),
              workerThreads(),
              batching);
      return new SigloSqsConsumer<>(client, config, processor());
    }
  }

  /**
   * @return where the key is unless the builder says otherwise: the {@code idempotency-key}
   *     attribute, else the deduplication id, else the message id
   */
  public static IdempotencyKeyExtractor<Object> defaultKeyExtractor() {
    return KeyExtractors.firstPresent(
        KeyExtractors.attribute(MessageProcessorConfig.DEFAULT_KEY_HEADER),
        KeyExtractors.deduplicationId(),
        KeyExtractors.messageId());
  }
}
