package dev.siglo.kafka.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.spi.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes records to their dead-letter topic with the original key, value and headers plus {@code
 * siglo.dlt.*} headers, and waits for the broker's acknowledgement so the original offset is
 * committed only after the dead letter is durable. Thread-safe (the producer is).
 */
final class DeadLetterPublisher implements DeadLetterSink, AutoCloseable {

  private final KafkaProducer<byte[], byte[]> producer;
  private final Function<String, String> topicFor;
  private final String group;
  private final long timeoutMs;

  DeadLetterPublisher(
      Map<String, Object> clientProperties,
      Function<String, String> topicFor,
      String group,
      long timeoutMs) {
    Map<String, Object> props = new HashMap<>();
    for (Map.Entry<String, Object> e : clientProperties.entrySet()) {
      if (ProducerConfig.configNames().contains(e.getKey())) {
        props.put(e.getKey(), e.getValue());
      }
    }
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "siglo-dlt-" + group);
    this.producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    this.topicFor = topicFor;
    this.group = group;
    this.timeoutMs = timeoutMs;
  }

  /**
   * Publishes a dead letter and waits for it.
   *
   * @throws Exception when the broker does not acknowledge it in time
   */
  @Override
  public void publish(
      ConsumerRecord<byte[], byte[]> r,
      String reason,
      ErrorClass errorClass,
      Throwable cause,
      int attempts)
      throws Exception {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.headers()) {
      headers.add(h);
    }
    add(headers, DeadLetters.ORIGINAL_TOPIC, r.topic());
    add(headers, DeadLetters.ORIGINAL_PARTITION, String.valueOf(r.partition()));
    add(headers, DeadLetters.ORIGINAL_OFFSET, String.valueOf(r.offset()));
    add(headers, DeadLetters.GROUP, group);
    DeadLetters.metadata(reason, errorClass, cause, attempts).forEach((n, v) -> add(headers, n, v));
    producer
        .send(new ProducerRecord<>(topicFor.apply(r.topic()), null, r.key(), r.value(), headers))
        .get(timeoutMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public String topicFor(ConsumerRecord<byte[], byte[]> record) {
    return topicFor.apply(record.topic());
  }

  private static void add(RecordHeaders headers, String name, String value) {
    headers.add(DeadLetters.KAFKA_HEADER_PREFIX + name, value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    producer.close(java.time.Duration.ofSeconds(5));
  }
}
