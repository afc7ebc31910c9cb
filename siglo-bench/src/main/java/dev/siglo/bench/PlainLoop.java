package dev.siglo.bench;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The baseline: a plain {@link KafkaConsumer} poll loop that handles each record in order on the
 * poll thread and commits (asynchronously) after each poll, with a final synchronous commit, as
 * most hand-written consumers do. Its window ends when the final synchronous commit returns.
 */
final class PlainLoop {
  /** What the loop does with one record. */
  @FunctionalInterface
  interface RecordAction {
    void accept(ConsumerRecord<byte[], byte[]> record) throws Exception;
  }

  private PlainLoop() {}

  static void run(
      String bootstrap, String topic, String group, Ledger ledger, long target, RecordAction action)
      throws Exception {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    long deadline = System.nanoTime() + KafkaData.runTimeout((int) target).toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (ledger.progress() < target) {
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailure(
              "plain loop on " + topic + " finished " + ledger.progress() + " of " + target);
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          action.accept(r);
        }
        if (!records.isEmpty()) {
          consumer.commitAsync();
        }
      }
      consumer.commitSync(Duration.ofSeconds(30));
      ledger.durable(); // the synchronous commit returned: the last record is covered
    }
  }
}
