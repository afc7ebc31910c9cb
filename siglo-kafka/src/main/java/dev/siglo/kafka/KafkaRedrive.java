package dev.siglo.kafka;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.spi.DeadLetters;
import dev.siglo.consumer.spi.Redrives;
import dev.siglo.kafka.internal.RecordMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Redrives dead letters from dead-letter topics back to their original topics: each selected record
 * goes back with its original key, value and headers (the {@code siglo.dlt.*} headers removed) plus
 * its redrive count ({@link Redrives#COUNT}) and first origin ({@link Redrives#ORIGIN}). The
 * dead-letter topics are read from the beginning to their end at the start, without a consumer
 * group, and are never changed: of a record dead-lettered several times, only the latest copy (the
 * highest redrive count) counts, so redriving twice redrives each still failing record once per
 * run, and a record whose key completed meanwhile is skipped. Sends are acknowledged by the broker
 * before the run returns.
 */
public final class KafkaRedrive {
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  private KafkaRedrive() {}

  /**
   * @param client the consumer's client properties (bootstrap servers, security)
   * @param deadLetterTopics the dead-letter topics to read
   * @param rawKey the key of a dead letter as the consumer saw its original (see {@link
   *     Redrives#rawKey})
   * @param planner decides each dead letter and keeps the report
   * @throws IllegalStateException when a send fails or the topics cannot be read in time
   */
  public static void run(
      Map<String, Object> client,
      List<String> deadLetterTopics,
      Function<Message, Optional<String>> rawKey,
      Redrives.Planner planner) {
    List<ConsumerRecord<byte[], byte[]>> records = read(client, deadLetterTopics);
    Map<String, Integer> latest = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      latest.merge(origin(r), count(r), Math::max);
    }
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    Map<String, Object> producer = new HashMap<>(client);
    producer.put(ProducerConfig.ACKS_CONFIG, "all");
    producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    producer.remove(ConsumerConfig.GROUP_ID_CONFIG);
    try (KafkaProducer<byte[], byte[]> out =
        new KafkaProducer<>(producer, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (ConsumerRecord<byte[], byte[]> r : records) {
        String origin = origin(r);
        int count = count(r);
        Redrives.DeadLetter d =
            new Redrives.DeadLetter(
                r.topic() + "-" + r.partition() + "@" + r.offset(),
                header(r, DeadLetters.KAFKA_HEADER_PREFIX + DeadLetters.REASON).orElse("?"),
                Instant.ofEpochMilli(r.timestamp()),
                count,
                rawKey.apply(RecordMapper.toMessage(r, 1)).orElse(null));
        Optional<String> topic =
            header(r, DeadLetters.KAFKA_HEADER_PREFIX + DeadLetters.ORIGINAL_TOPIC);
        boolean superseded = latest.get(origin) > count || topic.isEmpty();
        if (planner.decide(d, superseded) == Redrives.Verdict.REDRIVEN && !planner.dryRun()) {
          sent.add(out.send(redriven(r, topic.get(), origin, count + 1)));
        }
      }
      out.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("a redriven record was not acknowledged: " + e.getCause(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while redriving", e);
    }
  }

  private static ProducerRecord<byte[], byte[]> redriven(
      ConsumerRecord<byte[], byte[]> r, String topic, String origin, int count) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.headers()) {
      if (!h.key().startsWith(DeadLetters.KAFKA_HEADER_PREFIX)
          && !h.key().equals(Redrives.COUNT)
          && !h.key().equals(Redrives.ORIGIN)) {
        headers.add(h);
      }
    }
    headers.add(Redrives.COUNT, String.valueOf(count).getBytes(StandardCharsets.UTF_8));
    headers.add(Redrives.ORIGIN, origin.getBytes(StandardCharsets.UTF_8));
    return new ProducerRecord<>(topic, null, r.key(), r.value(), headers);
  }

  /** Every record of the topics, from the beginning to the end offsets at the start. */
  private static List<ConsumerRecord<byte[], byte[]>> read(
      Map<String, Object> client, List<String> topics) {
    Map<String, Object> props = new HashMap<>(client);
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (String topic : topics) {
        List<PartitionInfo> infos = c.partitionsFor(topic, READ_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
          throw new IllegalStateException("the dead-letter topic '" + topic + "' does not exist");
        }
        infos.forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      }
      c.assign(partitions);
      c.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = c.endOffsets(partitions, READ_TIMEOUT);
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (partitions.stream().anyMatch(tp -> c.position(tp, READ_TIMEOUT) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topics + " took over " + READ_TIMEOUT);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(POLL)) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            out.add(r);
          }
        }
      }
    }
    return out;
  }

  /** The record's first original, {@code topic/partition/offset}. */
  private static String origin(ConsumerRecord<byte[], byte[]> r) {
    return header(r, Redrives.ORIGIN)
        .orElseGet(
            () ->
                header(r, DeadLetters.KAFKA_HEADER_PREFIX + DeadLetters.ORIGINAL_TOPIC).orElse("?")
                    + "/"
                    + header(r, DeadLetters.KAFKA_HEADER_PREFIX + DeadLetters.ORIGINAL_PARTITION)
                        .orElse("?")
                    + "/"
                    + header(r, DeadLetters.KAFKA_HEADER_PREFIX + DeadLetters.ORIGINAL_OFFSET)
                        .orElse(r.topic() + "@" + r.offset()));
  }

  private static int count(ConsumerRecord<byte[], byte[]> r) {
    try {
      return header(r, Redrives.COUNT).map(Integer::parseInt).orElse(0);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static Optional<String> header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null || h.value() == null
        ? Optional.empty()
        : Optional.of(new String(h.value(), StandardCharsets.UTF_8));
  }
}
