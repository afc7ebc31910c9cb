package dev.siglo.kafka;

import dev.siglo.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Producing, reading committed offsets and dead letters on the test broker. */
final class KafkaTestSupport implements AutoCloseable {
  private final KafkaBroker broker;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Admin admin;

  KafkaTestSupport(KafkaBroker broker) {
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

  /** Sends a record (key and idempotency header may be null) without waiting. */
  void send(String topic, Integer partition, String key, String idempotencyKey, String value) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(
            topic,
            partition,
            bytes(key),
            value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    if (idempotencyKey != null) {
      r.headers().add("idempotency-key", idempotencyKey.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(r);
  }

  void sendRaw(String topic, Integer partition, String key, String idempotencyKey, byte[] value) {
    ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, partition, bytes(key), value);
    if (idempotencyKey != null) {
      r.headers().add("idempotency-key", idempotencyKey.getBytes(StandardCharsets.UTF_8));
    }
    producer.send(r);
  }

  void flush() {
    producer.flush();
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @return the end offset of every partition of the topic
   */
  Map<TopicPartition, Long> endOffsets(String topic, int partitions) throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  /**
   * @return the group's committed offsets (missing partitions have none)
   */
  Map<TopicPartition, Long> committed(String group) throws Exception {
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

  /** Reads every record of a topic from the beginning until {@code expected} arrived or 60 s. */
  List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int expected) {
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

  /** Waits (120 s at most) until the group committed every non-empty partition to its end. */
  void awaitCommittedToEnd(String group, String topic, int partitions) {
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

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    producer.close();
    admin.close();
  }
}
