package dev.siglo.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;

/** The Kafka side of a scenario: topics, sending the manifest, dead letters, committed offsets. */
final class KafkaSide {
  static final int PARTITIONS = 3;

  private KafkaSide() {}

  static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
  }

  static void createTopics(String bootstrap, String topic) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, PARTITIONS, (short) 1),
                  new NewTopic(topic + "-dlt", 1, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      Awaitility.await("leaders of " + topic)
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(
              () ->
                  admin
                      .describeTopics(List.of(topic, topic + "-dlt"))
                      .allTopicNames()
                      .get(10, TimeUnit.SECONDS)
                      .values()
                      .stream()
                      .flatMap(d -> d.partitions().stream())
                      .allMatch(partition -> partition.leader() != null));
    }
  }

  /** Sends every message; copies of one key go to different partitions (they may run at once). */
  static void send(String bootstrap, String topic, Manifest manifest) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // plain retries in order: the history must hold exactly what the manifest says
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (Manifest.Item item : manifest.items) {
        List<Header> headers = new ArrayList<>();
        if (item.key() != null) {
          headers.add(
              new RecordHeader("idempotency-key", item.key().getBytes(StandardCharsets.UTF_8)));
        }
        int partition =
            Math.floorMod(
                (item.key() == null ? 0 : item.key().hashCode()) + item.copy(), PARTITIONS);
        sent.add(
            producer.send(
                new ProducerRecord<byte[], byte[]>(
                    topic, partition, null, item.payload(), headers)));
      }
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        RecordMetadata r = f.get(60, TimeUnit.SECONDS);
        manifest.coordinates.add(r.topic() + "-" + r.partition() + "@" + r.offset());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending the manifest", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("sending the manifest failed: " + e, e);
    }
  }

  /**
   * @return whether the group committed every partition of the topic to its end
   */
  static boolean committedToEnd(String bootstrap, String group, String topic) {
    try (Admin admin = admin(bootstrap)) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < PARTITIONS; i++) {
        latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      for (var e : admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet()) {
        OffsetAndMetadata c = committed.get(e.getKey());
        if (e.getValue().offset() > 0 && (c == null || c.offset() < e.getValue().offset())) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      return false; // the broker may be down; ask again
    }
  }

  /**
   * @return whether the share group acknowledged every partition of the topic to its end (the
   *     broker reports its lag as 0: every record was accepted or rejected, durably in the share
   *     coordinator; the start offset itself may stay behind until a fetch moves it)
   */
  static boolean acknowledgedToEnd(String bootstrap, String group, String topic) {
    try (Admin admin = admin(bootstrap)) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < PARTITIONS; i++) {
        latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      Map<TopicPartition, org.apache.kafka.clients.admin.SharePartitionOffsetInfo> at =
          admin
              .listShareGroupOffsets(
                  Map.of(
                      group,
                      new org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec()
                          .topicPartitions(latest.keySet())))
              .partitionsToOffsetInfo(group)
              .get(10, TimeUnit.SECONDS);
      for (var e : admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet()) {
        var info = at.get(e.getKey());
        long end = e.getValue().offset();
        boolean acknowledged =
            info != null && info.lag().map(l -> l == 0).orElse(info.startOffset() >= end);
        if (end > 0 && !acknowledged) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      return false; // the broker may be down, or the group not known yet; ask again
    }
  }

  /**
   * @return dead letters by their {@code siglo.dlt.reason} header
   */
  private static String text(ConsumerRecord<byte[], byte[]> r, String header) {
    Header h = r.headers().lastHeader(header);
    return h == null ? "?" : new String(h.value(), StandardCharsets.UTF_8);
  }

  static Map<String, Integer> deadLetters(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<String, Integer> reasons = new HashMap<>();
    Set<String> seen = new HashSet<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic + "-dlt", 0);
      c.assign(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      c.seekToBeginning(List.of(tp));
      while (c.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          // a dead letter is published at least once: a crash between its publish and its
          // record's commit publishes it again, so each original record counts once
          if (!seen.add(
              text(r, "siglo.dlt.original-partition")
                  + "@"
                  + text(r, "siglo.dlt.original-offset"))) {
            continue;
          }
          reasons.merge(text(r, "siglo.dlt.reason"), 1, Integer::sum);
        }
      }
    }
    return reasons;
  }
}
