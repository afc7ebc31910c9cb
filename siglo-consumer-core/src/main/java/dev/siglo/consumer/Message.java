package dev.siglo.consumer;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A broker-neutral, immutable view of one delivered message.
 *
 * <p>Kafka records and SQS messages are mapped to this view by the runtimes. {@link #headers()}
 * holds Kafka headers or SQS message attributes (string values; for repeated Kafka headers the last
 * one wins); {@link #systemAttributes()} holds broker-level attributes such as SQS {@code
 * MessageGroupId} or {@code MessageDeduplicationId}.
 *
 * <p>The payload array is not copied, for speed: callers must not modify the array returned by
 * {@link #payload()}. Instances are thread-safe otherwise.
 */
public final class Message {
  private final String id;
  private final String recordKey;
  private final byte[] payload;
  private final Map<String, String> headers;
  private final Map<String, String> systemAttributes;
  private final MessageSource source;
  private final Instant timestamp;
  private final int deliveryAttempt;

  private Message(Builder b) {
    this.id = Objects.requireNonNull(b.id, "id");
    this.recordKey = b.recordKey;
    this.payload = b.payload == null ? new byte[0] : b.payload;
    this.headers = frozen(b.headers);
    this.systemAttributes = frozen(b.systemAttributes);
    this.source = Objects.requireNonNull(b.source, "source");
    this.timestamp = b.timestamp == null ? Instant.EPOCH : b.timestamp;
    this.deliveryAttempt = b.deliveryAttempt;
  }

  /** An unmodifiable copy, in order; no map at all for none (most messages have no attributes). */
  private static Map<String, String> frozen(Map<String, String> m) {
    return m == null || m.isEmpty()
        ? Collections.emptyMap()
        : Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }

  /**
   * Starts a message.
   *
   * @param id the broker's message id (for Kafka {@code topic-partition@offset})
   * @param source where the message came from
   * @return a builder
   */
  public static Builder builder(String id, MessageSource source) {
    return new Builder(id, source);
  }

  /**
   * @return the broker's message id; never {@code null}
   */
  public String id() {
    return id;
  }

  /**
   * @return the broker record key (Kafka record key), if any
   */
  public Optional<String> recordKey() {
    return Optional.ofNullable(recordKey);
  }

  /**
   * @return the raw payload bytes (not copied; do not modify); empty when the message had none
   */
  public byte[] payload() {
    return payload;
  }

  /**
   * @return the headers (Kafka) or message attributes (SQS); unmodifiable
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * @param name the header or attribute name
   * @return its value, if present
   */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name));
  }

  /**
   * @return broker system attributes (SQS {@code MessageGroupId}, ...); unmodifiable
   */
  public Map<String, String> systemAttributes() {
    return systemAttributes;
  }

  /**
   * @return where the message came from
   */
  public MessageSource source() {
    return source;
  }

  /**
   * @return the broker timestamp, {@link Instant#EPOCH} when unknown
   */
  public Instant timestamp() {
    return timestamp;
  }

  /**
   * The delivery attempt, starting at 1: Kafka counts the runtime's own redeliveries, SQS uses
   * {@code ApproximateReceiveCount}.
   *
   * @return the delivery attempt, at least 1
   */
  public int deliveryAttempt() {
    return deliveryAttempt;
  }

  /** Names the message for logs: source and id, never the payload. */
  @Override
  public String toString() {
    return "Message[" + source + ", id=" + id + ", attempt=" + deliveryAttempt + "]";
  }

  /** Builds a {@link Message}. Not thread-safe. */
  public static final class Builder {
    private final String id;
    private final MessageSource source;
    private String recordKey;
    private byte[] payload;
    private Map<String, String> headers;
    private Map<String, String> systemAttributes;
    private Instant timestamp;
    private int deliveryAttempt = 1;

    private Builder(String id, MessageSource source) {
      this.id = id;
      this.source = source;
    }

    /**
     * @param recordKey the broker record key, may be {@code null}
     * @return this builder
     */
    public Builder recordKey(String recordKey) {
      this.recordKey = recordKey;
      return this;
    }

    /**
     * @param payload the payload bytes (not copied), may be {@code null} for an empty payload
     * @return this builder
     */
    public Builder payload(byte[] payload) {
      this.payload = payload;
      return this;
    }

    /**
     * @param name header or attribute name
     * @param value its value
     * @return this builder
     */
    public Builder header(String name, String value) {
      if (headers == null) {
        headers = new LinkedHashMap<>();
      }
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * @param name system attribute name
     * @param value its value
     * @return this builder
     */
    public Builder systemAttribute(String name, String value) {
      if (systemAttributes == null) {
        systemAttributes = new LinkedHashMap<>();
      }
      systemAttributes.put(
          Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * @param timestamp the broker timestamp
     * @return this builder
     */
    public Builder timestamp(Instant timestamp) {
      this.timestamp = timestamp;
      return this;
    }

    /**
     * @param deliveryAttempt the delivery attempt, at least 1
     * @return this builder
     */
    public Builder deliveryAttempt(int deliveryAttempt) {
      if (deliveryAttempt < 1) {
        throw new IllegalArgumentException("deliveryAttempt must be >= 1, was " + deliveryAttempt);
      }
      this.deliveryAttempt = deliveryAttempt;
      return this;
    }

    /**
     * @return the message
     */
    public Message build() {
      return new Message(this);
    }
  }
}
