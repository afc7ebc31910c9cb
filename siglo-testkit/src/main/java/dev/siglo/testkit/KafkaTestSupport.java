package dev.siglo.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Producing, reading committed offsets and dead letters on a test broker, for tests: a producer and
 * an admin client on the broker, closed together.
 */
public final class KafkaTestSupport implements AutoCloseable {
  private final KafkaBroker broker;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Admin admin;
  private final AtomicReference<Exception> undelivered = new AtomicReference<>();

  /**
   * @param broker the broker
   */
  public KafkaTestSupport(KafkaBroker broker) {
    this.broker = broker;
    this.producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.LINGER_MS_CONFIG,
                5),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    this.admin = broker.admin();
  }

  /**
   * Sends a record without waiting.
   *
   * @param topic the topic
   * @param partition the partition, or null for the producer's choice
   * @param key the record key, or null
   * @param idempotencyKey the {@code idempotency-key} header, or null
   * @param value the value, or null
   */
  public void send(
      String topic, Integer partition, String key, String idempotencyKey, String value) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(
            topic,
            partition,
            bytes(key),
            value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    if (idempotencyKey != null) {
      r.headers().add("idempotency-key", idempotencyKey.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(r, this::delivered);
  }

  /**
   * Sends a record of raw bytes without waiting.
   *
   * @param topic the topic
   * @param partition the partition, or null for the producer's choice
   * @param key the record key, or null
   * @param idempotencyKey the {@code idempotency-key} header, or null
   * @param value the value
   */
  public void sendRaw(
      String topic, Integer partition, String key, String idempotencyKey, byte[] value) {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, partition, bytes(key), value);
    if (idempotencyKey != null) {
      r.headers().add("idempotency-key", idempotencyKey.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(r, this::delivered);
  }

  /** Waits until every sent record was acknowledged. */
  public void flush() {
    producer.flush();
    Exception failed = undelivered.getAndSet(null);
    if (failed != null) {
      // a record the test meant to send is missing: the consumer under test must not be blamed
      throw new IllegalStateException("a test record was not delivered to the broker", failed);
    }
  }

  private void delivered(RecordMetadata metadata, Exception failure) {
    if (failure != null) {
      undelivered.compareAndSet(null, failure);
    }
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param topic the topic
   * @param partitions its partition count
   * @return the end offset of every partition of the topic
   * @throws Exception when the broker does not answer within 30 s
   */
  public Map<TopicPartition, Long> endOffsets(String topic, int partitions) throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  /**
   * @param group the consumer group
   * @return the group's committed offsets (missing partitions have none)
   * @throws Exception when the broker does not answer within 30 s
   */
  public Map<TopicPartition, Long> committed(String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS);
    Map<TopicPartition, Long> out = new HashMap<>();
    offsets.forEach(
        (tp, o) -> {
          if (o != null) {
            out.put(tp, o.offset());
          }
        });
    return out;
  }

  /**
   * Reads every record of a topic from the beginning until {@code expected} arrived or 60 s.
   *
   * @param topic the topic
   * @param expected how many to wait for
   * @return the records read
   */
  public List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      c.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (out.size() < expected && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  /**
   * Waits (120 s at most) until the group committed every non-empty partition to its end.
   *
   * @param group the consumer group
   * @param topic the topic
   * @param partitions its partition count
   */
  public void awaitCommittedToEnd(String group, String topic, int partitions) {
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              // an empty partition (the producer's sticky partitioner may skip one) has nothing to
              // commit
              Map<TopicPartition, Long> end = new HashMap<>(endOffsets(topic, partitions));
              end.values().removeIf(offset -> offset == 0L);
              org.assertj.core.api.Assertions.assertThat(end).isNotEmpty();
              org.assertj.core.api.Assertions.assertThat(committed(group))
                  .containsAllEntriesOf(end);
            });
  }

  /**
   * @param r a record
   * @param name a header name
   * @return the last such header as UTF-8, or null
   */
  public static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
    admin.close();
  }
}
