package dev.siglo.launcher;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Produces the launcher tests' records: JSON {@code {"id": prefix + i}}, each key in copies. */
final class JsonRecords {
  private JsonRecords() {}

  /** Sends {@code copies} copies of {@code count} records {"id": prefix + i}, then flushes. */
  static void produce(String bootstrap, String topic, String prefix, int count, int copies) {
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (int copy = 0; copy < copies; copy++) {
        for (int i = 0; i < count; i++) {
          String json = "{\"id\":\"" + prefix + i + "\"}";
          p.send(new ProducerRecord<>(topic, null, json.getBytes(StandardCharsets.UTF_8)));
        }
      }
    }
  }
}
