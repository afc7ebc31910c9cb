package dev.siglo.kafka.internal;

import dev.siglo.consumer.engine.Batching;
import dev.siglo.kafka.Ordering;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The runtime's settings, validated by the public builder.
 *
 * @param clientProperties Kafka client properties (bootstrap, group, security, extras)
 * @param groupId the consumer group
 * @param topics the topics, or empty when a pattern is used
 * @param pattern the topic pattern, or null
 * @param ordering the ordering mode
 * @param concurrency worker threads
 * @param maxBuffered records held before fetching pauses
 * @param commitInterval how often completed offsets are committed asynchronously
 * @param rebalanceTimeout bounded wait for in-flight records of revoked partitions
 * @param topicCheckTimeout how long start waits for the topics to exist
 * @param deadLetterTopic the dead-letter topic of a topic
 * @param deadLetterDeclines whether permanent declines are also copied to the dead-letter topic
 * @param createDeadLetterTopics whether missing dead-letter topics are created at start (else a
 *     missing one is a configuration error)
 * @param deadLetterTimeout how long a dead-letter publish may take
 * @param metrics where in-flight and lag gauges go, or null
 * @param workerThreads the threads the workers run on
 * @param batching batches for a batch handler, else {@link Batching#NONE}
 */
public record KafkaRuntimeConfig(
    Map<String, Object> clientProperties,
    String groupId,
    List<String> topics,
    Pattern pattern,
    Ordering ordering,
    int concurrency,
    int maxBuffered,
    Duration commitInterval,
    Duration rebalanceTimeout,
    Duration topicCheckTimeout,
    Function<String, String> deadLetterTopic,
    boolean deadLetterDeclines,
    boolean createDeadLetterTopics,
    Duration deadLetterTimeout,
    dev.siglo.consumer.metrics.SigloMetrics metrics,
    dev.siglo.consumer.WorkerThreads workerThreads,
    Batching batching) {}
