package dev.siglo.consumer;

import java.util.Objects;

/**
 * Where a message came from: the broker system ({@code kafka}, {@code sqs}, ...), the destination
 * (topic or queue), and for partitioned brokers the partition and offset ({@code -1} when not
 * applicable). Used in logs, events and dead-letter metadata.
 *
 * @param system the broker system, for example {@code kafka} or {@code sqs}; never blank
 * @param destination the topic or queue name; never blank
 * @param partition the partition, or {@code -1} for unpartitioned brokers
 * @param offset the offset within the partition, or {@code -1} for brokers without offsets
 */
public record MessageSource(String system, String destination, int partition, long offset) {

  /**
   * Validates the components.
   *
   * @param system see the record component
   * @param destination see the record component
   * @param partition see the record component
   * @param offset see the record component
   */
  public MessageSource {
    Objects.requireNonNull(system, "system");
    Objects.requireNonNull(destination, "destination");
    if (system.isBlank() || destination.isBlank()) {
      throw new IllegalArgumentException("system and destination must not be blank");
    }
  }

  /**
   * A source without partitions or offsets (for example an SQS queue).
   *
   * @param system the broker system
   * @param destination the queue name
   * @return the source
   */
  public static MessageSource of(String system, String destination) {
    return new MessageSource(system, destination, -1, -1L);
  }

  @Override
  public String toString() {
    return partition < 0
        ? system + ":" + destination
        : system + ":" + destination + "-" + partition + "@" + offset;
  }
}
