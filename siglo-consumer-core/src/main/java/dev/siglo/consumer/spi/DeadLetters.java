package dev.siglo.consumer.spi;

import dev.siglo.consumer.classify.ErrorClass;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a runtime writes on a dead letter, the same for every runtime: the names of the metadata
 * (Kafka record headers under {@link #KAFKA_HEADER_PREFIX}, SQS message attributes under {@link
 * #SQS_ATTRIBUTE_PREFIX}) and their values. Consumers of a dead-letter topic or queue read these
 * names. Stateless and thread-safe.
 */
public final class DeadLetters {
  /** The prefix of every Siglo header on a Kafka dead-letter record. */
  public static final String KAFKA_HEADER_PREFIX = "siglo.dlt.";

  /** The prefix of every Siglo attribute on an SQS dead-letter message. */
  public static final String SQS_ATTRIBUTE_PREFIX = "siglo.dlq.";

  /** Why the message was dead-lettered: a {@code DeadLetterReason} name, or {@code DECLINED}. */
  public static final String REASON = "reason";

  /** {@code PERMANENT} or {@code TRANSIENT}. */
  public static final String ERROR_CLASS = "classification";

  /** In-process attempts made in the last delivery. */
  public static final String ATTEMPTS = "attempts";

  /** The class of the failure, when there was one. */
  public static final String EXCEPTION_CLASS = "exception-class";

  /** The failure's message, at most {@link #MAX_MESSAGE_LENGTH} characters. */
  public static final String EXCEPTION_MESSAGE = "exception-message";

  /** Kafka: the topic the record was consumed from. */
  public static final String ORIGINAL_TOPIC = "original-topic";

  /** Kafka: its partition. */
  public static final String ORIGINAL_PARTITION = "original-partition";

  /** Kafka: its offset. */
  public static final String ORIGINAL_OFFSET = "original-offset";

  /** Kafka: the consumer group that dead-lettered it. */
  public static final String GROUP = "group";

  /** SQS: the id of the original message. */
  public static final String ORIGINAL_MESSAGE_ID = "original-message-id";

  /**
   * The longest failure message kept on a dead letter or in a cached decline; longer ones are cut
   * and end with {@code ...}.
   */
  public static final int MAX_MESSAGE_LENGTH = 1024;

  private DeadLetters() {}

  /**
   * The metadata every runtime writes, unprefixed, in a stable order.
   *
   * @param reason why
   * @param errorClass the class of the failure
   * @param cause the failure, or {@code null}
   * @param attempts in-process attempts of the last delivery
   * @return name to value
   */
  public static Map<String, String> metadata(
      String reason, ErrorClass errorClass, Throwable cause, int attempts) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(REASON, reason);
    m.put(ERROR_CLASS, errorClass.name());
    m.put(ATTEMPTS, String.valueOf(attempts));
    if (cause != null) {
      m.put(EXCEPTION_CLASS, cause.getClass().getName());
      m.put(EXCEPTION_MESSAGE, truncate(String.valueOf(cause.getMessage())));
    }
    return m;
  }

  /**
   * @param message a failure message, or {@code null}
   * @return the message cut to {@link #MAX_MESSAGE_LENGTH} characters, {@code null} as is
   */
  public static String truncate(String message) {
    if (message == null || message.length() <= MAX_MESSAGE_LENGTH) {
      return message;
    }
    return message.substring(0, MAX_MESSAGE_LENGTH) + "...";
  }
}
