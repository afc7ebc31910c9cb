package dev.siglo.kafka.internal;

import dev.siglo.consumer.classify.ErrorClass;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Where {@link EngineRunner} sends a record's dead letter and waits until it is durable. The
 * runtime's sink is {@link DeadLetterPublisher}; unit tests give their own.
 */
@FunctionalInterface
interface DeadLetterSink {
  /**
   * @param record the original record
   * @param reason the dead-letter reason
   * @param errorClass the class of the failure
   * @param cause the failure
   * @param attempts in-process attempts of this delivery
   * @throws Exception when the dead letter was not acknowledged
   */
  void publish(
      ConsumerRecord<byte[], byte[]> record,
      String reason,
      ErrorClass errorClass,
      Throwable cause,
      int attempts)
      throws Exception;

  /**
   * @param record the original record
   * @return the topic its dead letter goes to, for error messages
   */
  default String topicFor(ConsumerRecord<byte[], byte[]> record) {
    return record.topic() + "'s dead-letter topic";
  }
}
