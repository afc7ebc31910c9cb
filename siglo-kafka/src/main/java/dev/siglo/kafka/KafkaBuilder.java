package dev.siglo.kafka;

import dev.siglo.consumer.AsyncMessageHandler;
import dev.siglo.consumer.BatchMessageHandler;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.Durations;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * What the builders of both Kafka runtimes share: the connection, the group, the topics, client
 * properties, workers, the dead-letter topics and the shutdown hook. Every setter validates its
 * argument; the concrete builder's {@code build()} checks the combination.
 *
 * @param <T> the decoded payload type
 * @param <B> the concrete builder
 */
public abstract class KafkaBuilder<T, B extends KafkaBuilder<T, B>> extends ConsumerBuilder<T, B> {
  final Map<String, Object> properties = new HashMap<>();
  String bootstrapServers;
  String groupId;
  List<String> topics = List.of();
  int concurrency = SigloKafkaConsumer.DEFAULT_CONCURRENCY;
  Duration topicCheckTimeout = SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT;
  Function<String, String> deadLetterTopic =
      topic -> topic + SigloKafkaConsumer.DEFAULT_DEAD_LETTER_SUFFIX;
  boolean deadLetterDeclines;
  boolean createDeadLetterTopics;
  boolean shutdownHook;

  KafkaBuilder(PayloadDecoder<T> decoder, MessageHandler<? super T> handler) {
    super(decoder, handler, SigloKafkaConsumer.defaultKeyExtractor());
  }

  KafkaBuilder(PayloadDecoder<T> decoder, AsyncMessageHandler<? super T> handler) {
    super(decoder, handler, SigloKafkaConsumer.defaultKeyExtractor());
  }

  KafkaBuilder(PayloadDecoder<T> decoder, BatchMessageHandler<T> handler) {
    super(decoder, handler, SigloKafkaConsumer.defaultKeyExtractor());
  }

  /**
   * @param bootstrapServers the Kafka bootstrap servers
   * @return this builder
   */
  public B bootstrapServers(String bootstrapServers) {
    this.bootstrapServers = nonBlank(bootstrapServers, "bootstrapServers");
    return self();
  }

  /**
   * @param groupId the consumer group, or the share group
   * @return this builder
   */
  public B groupId(String groupId) {
    this.groupId = nonBlank(groupId, "groupId");
    return self();
  }

  /**
   * @param topics the topics to subscribe to, at least one
   * @return this builder
   */
  public B topics(String... topics) {
    if (topics.length == 0) {
      throw new IllegalArgumentException("at least one topic");
    }
    for (String t : topics) {
      nonBlank(t, "topic");
    }
    this.topics = List.of(topics);
    return self();
  }

  /**
   * @param name any Kafka client property (security, timeouts, ...), passed to the consumer and
   *     (where it applies) to the dead-letter producer
   * @param value its value
   * @return this builder
   */
  public B property(String name, Object value) {
    properties.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return self();
  }

  /**
   * @param concurrency worker threads (independent of the partition count), at least 1
   * @return this builder
   */
  public B concurrency(int concurrency) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    this.concurrency = concurrency;
    return self();
  }

  /**
   * @param topicCheckTimeout how long start-up waits for the topics to exist
   * @return this builder
   */
  public B topicCheckTimeout(Duration topicCheckTimeout) {
    this.topicCheckTimeout = Durations.requirePositive(topicCheckTimeout, "topicCheckTimeout");
    return self();
  }

  /**
   * @param deadLetterTopic the dead-letter topic of a topic (default {@code <topic>-dlt}); for a
   *     share group, a function returning {@code null} means none: the record is rejected and the
   *     broker archives it
   * @return this builder
   */
  public B deadLetterTopic(Function<String, String> deadLetterTopic) {
    this.deadLetterTopic = Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    return self();
  }

  /**
   * @param copy also copy permanent declines to the dead-letter topic (they are acknowledged either
   *     way)
   * @return this builder
   */
  public B deadLetterDeclines(boolean copy) {
    this.deadLetterDeclines = copy;
    return self();
  }

  /**
   * @param create whether dead-letter topics that do not exist are created at start (with the
   *     broker's default partitions and replication); by default a missing one stops the consumer
   *     at start with a configuration error naming it, instead of stalling at the first dead letter
   * @return this builder
   */
  public B createDeadLetterTopics(boolean create) {
    this.createDeadLetterTopics = create;
    return self();
  }

  /**
   * @param install whether a JVM shutdown hook closes the consumer
   * @return this builder
   */
  public B shutdownHook(boolean install) {
    this.shutdownHook = install;
    return self();
  }

  /**
   * @return the client properties with the bootstrap servers and the group
   * @throws SigloConfigurationException when either is missing
   */
  Map<String, Object> connection() {
    if (bootstrapServers == null) {
      throw new SigloConfigurationException("bootstrapServers is required");
    }
    if (groupId == null) {
      throw new SigloConfigurationException("groupId is required");
    }
    Map<String, Object> client = new HashMap<>(properties);
    client.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    client.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    return client;
  }

  static String nonBlank(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value;
  }
}
