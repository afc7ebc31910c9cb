package dev.siglo.bench;

import dev.siglo.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Writing a benchmark's records to Kafka, and checking that a group committed all of them. */
final class KafkaData {
  static final int PAYLOAD_BYTES = 100;
  private static final int INDEX_DIGITS = 10;

  private KafkaData() {}

  /** A payload of {@link #PAYLOAD_BYTES} bytes that starts with the record's index. */
  static byte[] payload(int index) {
    byte[] b = new byte[PAYLOAD_BYTES];
    Arrays.fill(b, (byte) 'x');
    byte[] digits =
        String.format("%0" + INDEX_DIGITS + "d", index).getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(digits, 0, b, 0, INDEX_DIGITS);
    return b;
  }

  /** The index a {@link #payload} starts with. */
  static int index(byte[] payload) {
    int n = 0;
    for (int i = 0; i < INDEX_DIGITS; i++) {
      n = n * 10 + (payload[i] - '0');
    }
    return n;
  }

  static void produce(
      String bootstrap, int count, IntFunction<ProducerRecord<byte[], byte[]>> record) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < count; i++) {
        producer.send(
            record.apply(i),
            (meta, e) -> {
              if (e != null) {
                throw new BenchmarkFailure("producing a benchmark record failed: " + e);
              }
            });
      }
      producer.flush();
    }
  }

  /**
   * Fails unless {@code group} committed every partition of {@code topic} up to its end offset:
   * nothing was left behind.
   */
  static void requireCommittedToEnd(Admin admin, String group, String topic, String run) {
    String short_ = behind(admin, group, topic, endOffsets(admin, topic, run), run);
    if (short_ != null) {
      throw new BenchmarkFailure(run + ": " + short_);
    }
  }

  /**
   * Waits until {@code group} has committed every partition of {@code topic} to its end, reading
   * the committed offsets every 5 ms, and ends the ledger's window there: the commit that makes the
   * last record's work durable.
   */
  static void awaitCommittedToEnd(KafkaBroker kafka, String topic, String group, Ledger ledger) {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, Long> ends = endOffsets(admin, topic, group);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      String short_;
      while ((short_ = behind(admin, group, topic, ends, group)) != null) {
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailure(group + ": not committed to the end in 60 s: " + short_);
        }
        Thread.sleep(5); // the observer's poll interval: part of the measured window's resolution
      }
      ledger.durable();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailure(group + ": interrupted while watching the commits");
    }
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin, String topic, String run) {
    try {
      int partitions =
          admin
              .describeTopics(java.util.List.of(topic))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(topic)
              .partitions()
              .size();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < partitions; i++) {
        latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      return ends;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailure(run + ": interrupted while reading offsets");
    } catch (ExecutionException | TimeoutException e) {
      throw new BenchmarkFailure(run + ": reading the end offsets failed: " + e);
    }
  }

  /**
   * @return what the group has not committed yet, or null when it committed every partition to its
   *     end
   */
  private static String behind(
      Admin admin, String group, String topic, Map<TopicPartition, Long> ends, String run) {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailure(run + ": interrupted while reading offsets");
    } catch (ExecutionException | TimeoutException e) {
      throw new BenchmarkFailure(run + ": reading the committed offsets failed: " + e);
    }
    for (var e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      long end = e.getValue();
      if (end > 0 && (c == null || c.offset() != end)) {
        return "group "
            + group
            + " committed "
            + (c == null ? "nothing" : c.offset())
            + " on "
            + e.getKey()
            + ", the end is "
            + end;
      }
    }
    return null;
  }

  /**
   * Fails unless every record ran exactly once and the group committed the topic to its end.
   *
   * @return the run's ledger
   */
  static Ledger verified(
      dev.siglo.testkit.KafkaBroker kafka, String topic, String group, Ledger ledger) {
    ledger.tally().requireExactlyOnce(group);
    try (Admin admin = kafka.admin()) {
      requireCommittedToEnd(admin, group, topic, group);
    }
    return ledger;
  }

  static Duration runTimeout(int records) {
    return Duration.ofSeconds(120 + records / 500);
  }
}
