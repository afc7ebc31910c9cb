package dev.siglo.kafka.internal;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/** One record on its way through the runtime. Mutated only by the poll thread. */
final class Work {
  final ConsumerRecord<byte[], byte[]> record;
  final TopicPartition partition;
  final LaneKey lane;
  int attempt = 1;

  /** The attempt a worker runs: written by the poll thread before the hand-off. */
  volatile int dispatchedAttempt;

  long readyAtNanos;

  Work(ConsumerRecord<byte[], byte[]> record, TopicPartition partition, LaneKey lane) {
    this.record = record;
    this.partition = partition;
    this.lane = lane;
  }

  long offset() {
    return record.offset();
  }

  @Override
  public String toString() {
    return partition + "@" + record.offset() + " (attempt " + attempt + ")";
  }
}
