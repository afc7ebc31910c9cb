package dev.siglo.sqs.internal;

import java.time.Duration;

/**
 * The SQS runtime's settings, validated by the public builder.
 *
 * @param queueUrl the queue URL
 * @param fifo whether the queue is a FIFO queue
 * @param pollers receiving threads
 * @param concurrency worker threads
 * @param maxInFlight received messages held at most (bounded so visibility never lapses unnoticed)
 * @param waitTime long-polling wait
 * @param visibilityTimeout the queue's visibility timeout (heartbeats extend it)
 * @param heartbeatFraction a handler running past this fraction of the visibility timeout gets it
 *     extended
 * @param lease the claim lease renewed with each heartbeat
 * @param deleteInterval how long deletes wait to fill a batch of 10 (standard queues)
 * @param deadLetterQueueUrl where Siglo sends dead letters itself, or null to leave them to the
 *     queue's redrive policy
 * @param deadLetterDeclines whether permanent declines are also copied to that queue
 * @param metrics where the in-flight gauge goes, or null
 */
public record SqsSettings(
    String queueUrl,
    boolean fifo,
    int pollers,
    int concurrency,
    int maxInFlight,
    Duration waitTime,
    Duration visibilityTimeout,
    double heartbeatFraction,
    Duration lease,
    Duration deleteInterval,
    String deadLetterQueueUrl,
    boolean deadLetterDeclines,
    dev.siglo.consumer.metrics.SigloMetrics metrics) {}
