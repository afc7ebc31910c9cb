package dev.siglo.kafka.internal;

import dev.siglo.kafka.Ordering;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;

/**
 * The identity of a lane: always a partition, and within it either a record key (for {@link
 * Ordering#KEY}), nothing (for {@link Ordering#PARTITION}: the whole partition is one lane) or one
 * offset (a lane of its own: {@link Ordering#UNORDERED}, and records without a key under KEY).
 * Record keys compare as bytes.
 *
 * @param partition the partition
 * @param key the record key, or null
 * @param offset the offset of a single-record lane, or -1
 */
record LaneKey(TopicPartition partition, Bytes key, long offset) {

  /**
   * @param ordering the ordering mode
   * @param partition the record's partition
   * @param r the record
   * @return the record's lane
   */
  static LaneKey of(Ordering ordering, TopicPartition partition, ConsumerRecord<byte[], byte[]> r) {
    return switch (ordering) {
      case KEY ->
          r.key() == null
              ? new LaneKey(partition, null, r.offset())
              : new LaneKey(partition, Bytes.wrap(r.key()), -1);
      case PARTITION -> new LaneKey(partition, null, -1);
      case UNORDERED -> new LaneKey(partition, null, r.offset());
    };
  }
}
