package dev.siglo.sqs.internal;

import dev.siglo.consumer.engine.Batching;
import java.time.Duration;

/**
 * The SQS runtime's settings, validated by the public builder.
 *
 * @param queueUrl the queue URL
 * @param fifo whether the queue is a FIFO queue (known from {@link #forQueue} on)
 * @param pollers receiving threads
 * @param concurrency worker threads
 * @param maxInFlight received messages held at most (bounded so visibility never lapses unnoticed)
 * @param waitTime long-polling wait
 * @param visibilityTimeout the visibility timeout heartbeats extend by; before {@link #forQueue},
 *     null when the queue's own is to be used
 * @param heartbeatFraction a handler running past this fraction of the visibility timeout gets it
 *     extended
 * @param deleteInterval how long deletes wait to fill a batch of 10 (standard queues)
 * @param deadLetterQueueUrl where Siglo sends dead letters itself, or null to leave them to the
 *     queue's redrive policy
 * @param deadLetterDeclines whether permanent declines are also copied to that queue
 * @param metrics where the in-flight gauge goes, or null
 * @param workerThreads the threads the workers run on
 * @param batching batches for a batch handler (then {@code concurrency} batch workers), else {@link
 *     Batching#NONE}
 */
public record SqsRuntimeConfig(
    String queueUrl,
    boolean fifo,
    int pollers,
    int concurrency,
    int maxInFlight,
    Duration waitTime,
    Duration visibilityTimeout,
    double heartbeatFraction,
    Duration deleteInterval,
    String deadLetterQueueUrl,
    boolean deadLetterDeclines,
    dev.siglo.consumer.metrics.SigloMetrics metrics,
    dev.siglo.consumer.WorkerThreads workerThreads,
    Batching batching) {

  /**
   * This configuration completed with what the queue says at start.
   *
   * @param queueIsFifo whether the queue is a FIFO queue
   * @param queueVisibility the queue's visibility timeout, used unless one was configured
   * @return the configuration the runtime runs on
   */
  public SqsRuntimeConfig forQueue(boolean queueIsFifo, Duration queueVisibility) {
    return new SqsRuntimeConfig(
        queueUrl,
        queueIsFifo,
        pollers,
        concurrency,
        maxInFlight,
        waitTime,
        visibilityTimeout != null ? visibilityTimeout : queueVisibility,
        heartbeatFraction,
        deleteInterval,
        deadLetterQueueUrl,
        deadLetterDeclines,
        metrics,
        workerThreads,
        batching);
  }
}
