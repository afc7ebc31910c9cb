package dev.siglo.kafka.internal;

import dev.siglo.consumer.metrics.SigloMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The share-group runtime's settings, validated by the public builder.
 *
 * @param clientProperties share consumer properties (bootstrap, group, security, explicit
 *     acknowledgement, acquire mode, max poll records, extras)
 * @param groupId the share group
 * @param topics the topics
 * @param concurrency worker threads
 * @param maxDeliveries the engine's {@code maxDeliveries}, checked against the group's delivery
 *     count limit at start
 * @param topicCheckTimeout how long start waits for the topics to exist
 * @param deadLetterTopic the dead-letter topic of a topic; {@code null} for none (the record is
 *     rejected)
 * @param deadLetterDeclines whether permanent declines are also copied to the dead-letter topic
 * @param createDeadLetterTopics whether missing dead-letter topics are created at start
 * @param deadLetterTimeout how long a dead-letter publish may take
 * @param autoOffsetReset the {@code share.auto.offset.reset} Siglo sets on a group that has none of
 *     its own, or {@code null} to leave the group's
 * @param metrics where gauges and counters go, or null
 * @param workerThreads the threads the workers run on
 * @param batching batches for a batch handler (taken from the queued records at once, without
 *     lingering), else {@code Batching.NONE}
 */
public record ShareRuntimeConfig(
    Map<String, Object> clientProperties,
    String groupId,
    List<String> topics,
    int concurrency,
    int maxDeliveries,
    Duration topicCheckTimeout,
    Function<String, String> deadLetterTopic,
    boolean deadLetterDeclines,
    boolean createDeadLetterTopics,
    Duration deadLetterTimeout,
    String autoOffsetReset,
    SigloMetrics metrics,
    dev.siglo.consumer.WorkerThreads workerThreads,
    dev.siglo.consumer.engine.Batching batching) {}
