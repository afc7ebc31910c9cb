package dev.siglo.consumer.key;

import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.store.StoreKeys;
import java.util.Objects;

/**
 * Builds scoped idempotency keys in the reference format {@code
 * {prefix}:{namespace}:{version}:{key}} (prefix {@code ff:idemp} by default), so keys interoperate
 * with other Siglo implementations sharing a store. {@code IdempotencyKeys.format("order-1234",
 * "tenant-a", "2.0.0")} returns {@code ff:idemp:tenant-a:2.0.0:order-1234}. An absent namespace or
 * version is written as {@code _}, so the segments stay unambiguous.
 *
 * <p>Raw keys come from messages and may be hostile: a raw key that is {@code null}, blank, longer
 * than {@link #maxRawLength()} or contains control or format characters (including unpaired
 * surrogates) is rejected with {@link InvalidIdempotencyKeyException}; a raw key longer than {@link
 * #digestThreshold()} is replaced by {@code sha256:<hex>} of its UTF-8 bytes, so stored keys stay
 * bounded. Namespace, version and step names must be 1 to 64 characters without {@code :},
 * whitespace or control characters, and not {@code _}.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class IdempotencyKeys {
  /** The reference prefix. */
  public static final String DEFAULT_PREFIX = "ff:idemp";

  /** Raw keys longer than this many characters are digested by default. */
  public static final int DEFAULT_DIGEST_THRESHOLD = 128;

  /** Raw keys longer than this many characters are rejected as hostile by default. */
  public static final int DEFAULT_MAX_RAW_LENGTH = 4096;

  /** The longest namespace, version, prefix or step name. */
  public static final int MAX_SEGMENT_LENGTH = 64;

  /** The longest key a store accepts (a built key is always far shorter). */
  public static final int MAX_STORE_KEY_LENGTH = StoreKeys.MAX_LENGTH;

  /** What separates a step key from the key of its message ({@link #scoped}). */
  public static final String STEP_SEPARATOR = ":step:";

  private static final String ABSENT = "_";
  private static final IdempotencyKeys DEFAULTS = custom().build();

  private final String prefix;
  private final String namespace;
  private final String version;
  private final int digestThreshold;
  private final int maxRawLength;
  private final String head;

  private IdempotencyKeys(Builder b) {
    this.prefix = b.prefix;
    this.namespace = b.namespace;
    this.version = b.version;
    this.digestThreshold = b.digestThreshold;
    this.maxRawLength = b.maxRawLength;
    this.head =
        prefix
            + ':'
            + (namespace == null ? ABSENT : namespace)
            + ':'
            + (version == null ? ABSENT : version)
            + ':';
  }

  /**
   * Builds a key with the default prefix and limits.
   *
   * @param key the raw key
   * @param namespace the namespace (for example a tenant), or {@code null}
   * @param version the handler or workflow version, or {@code null}
   * @return the scoped key
   * @throws InvalidIdempotencyKeyException when the key, namespace or version is invalid
   */
  public static String format(String key, String namespace, String version) {
    return custom().namespace(namespace).version(version).build().key(key);
  }

  /**
   * @return the default scheme: prefix {@code ff:idemp}, no namespace, no version
   */
  public static IdempotencyKeys defaults() {
    return DEFAULTS;
  }

  /**
   * @return a builder of a key scheme
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * Builds the scoped key for a raw key.
   *
   * @param rawKey the raw key from the message
   * @return {@code prefix:namespace:version:key}, the key digested when long
   * @throws InvalidIdempotencyKeyException when the raw key is invalid
   */
  public String key(String rawKey) {
    return head + normalize(rawKey, "idempotency key");
  }

  /**
   * Builds the key of a step scoped under its message's key: {@code
   * {messageKey}:step:{stepName}:{stepKey}}.
   *
   * @param messageKey the built key of the message
   * @param stepName the step's name (validated like a namespace)
   * @param rawStepKey the step's raw key
   * @return the scoped step key
   * @throws InvalidIdempotencyKeyException when a part is invalid
   */
  public String scoped(String messageKey, String stepName, String rawStepKey) {
    StoreKeys.requireValid(messageKey);
    return messageKey
        + STEP_SEPARATOR
        + requireSegment(stepName, "step name")
        + ':'
        + normalize(rawStepKey, "step key");
  }

  /**
   * @return the prefix
   */
  public String prefix() {
    return prefix;
  }

  /**
   * @return the namespace, or {@code null}
   */
  public String namespace() {
    return namespace;
  }

  /**
   * @return the version, or {@code null}
   */
  public String version() {
    return version;
  }

  /**
   * @return raw keys longer than this many characters are digested
   */
  public int digestThreshold() {
    return digestThreshold;
  }

  /**
   * @return raw keys longer than this many characters are rejected
   */
  public int maxRawLength() {
    return maxRawLength;
  }

  private String normalize(String raw, String what) {
    if (raw == null) {
      throw new InvalidIdempotencyKeyException(what + " is null");
    }
    if (raw.isBlank()) {
      throw new InvalidIdempotencyKeyException(what + " is blank");
    }
    if (raw.length() > maxRawLength) {
      throw new InvalidIdempotencyKeyException(
          what + " is " + raw.length() + " characters, over the limit of " + maxRawLength);
    }
    StoreKeys.requireNoControlCharacters(raw, what);
    return raw.length() > digestThreshold ? "sha256:" + Sha256.hex(raw) : raw;
  }

  static String requireSegment(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new InvalidIdempotencyKeyException(what + " must not be null or blank");
    }
    if (value.length() > MAX_SEGMENT_LENGTH) {
      throw new InvalidIdempotencyKeyException(
          what + " is " + value.length() + " characters, over the limit of " + MAX_SEGMENT_LENGTH);
    }
    if (ABSENT.equals(value)) {
      throw new InvalidIdempotencyKeyException(what + " must not be '_' (reserved for 'absent')");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == ':' || Character.isWhitespace(c)) {
        throw new InvalidIdempotencyKeyException(
            what + " '" + value + "' must not contain ':' or whitespace (index " + i + ")");
      }
    }
    StoreKeys.requireNoControlCharacters(value, what);
    return value;
  }

  @Override
  public String toString() {
    return "IdempotencyKeys[" + head + "<key>]";
  }

  /** Builds an {@link IdempotencyKeys} scheme; every setter validates its argument. */
  public static final class Builder {
    private String prefix = DEFAULT_PREFIX;
    private String namespace;
    private String version;
    private int digestThreshold = DEFAULT_DIGEST_THRESHOLD;
    private int maxRawLength = DEFAULT_MAX_RAW_LENGTH;

    private Builder() {}

    /**
     * @param prefix the key prefix (may contain {@code :}; no whitespace or control characters)
     * @return this builder
     */
    public Builder prefix(String prefix) {
      Objects.requireNonNull(prefix, "prefix");
      if (prefix.isBlank() || prefix.length() > MAX_SEGMENT_LENGTH) {
        throw new InvalidIdempotencyKeyException(
            "prefix must be 1 to " + MAX_SEGMENT_LENGTH + " characters");
      }
      for (String part : prefix.split(":", -1)) {
        requireSegment(part, "prefix segment");
      }
      this.prefix = prefix;
      return this;
    }

    /**
     * @param namespace the namespace, or {@code null} for none
     * @return this builder
     */
    public Builder namespace(String namespace) {
      this.namespace = namespace == null ? null : requireSegment(namespace, "namespace");
      return this;
    }

    /**
     * @param version the version, or {@code null} for none
     * @return this builder
     */
    public Builder version(String version) {
      this.version = version == null ? null : requireSegment(version, "version");
      return this;
    }

    /**
     * @param digestThreshold raw keys longer than this are digested; 72 to 512
     * @return this builder
     */
    public Builder digestThreshold(int digestThreshold) {
      if (digestThreshold < 72 || digestThreshold > 512) {
        throw new IllegalArgumentException(
            "digestThreshold must be between 72 and 512, was " + digestThreshold);
      }
      this.digestThreshold = digestThreshold;
      return this;
    }

    /**
     * @param maxRawLength raw keys longer than this are rejected; at least the digest threshold
     * @return this builder
     */
    public Builder maxRawLength(int maxRawLength) {
      if (maxRawLength < 1) {
        throw new IllegalArgumentException("maxRawLength must be positive, was " + maxRawLength);
      }
      this.maxRawLength = maxRawLength;
      return this;
    }

    /**
     * @return the scheme
     * @throws IllegalArgumentException when maxRawLength is below digestThreshold
     */
    public IdempotencyKeys build() {
      if (maxRawLength < digestThreshold) {
        throw new IllegalArgumentException(
            "maxRawLength ("
                + maxRawLength
                + ") must not be below digestThreshold ("
                + digestThreshold
                + ")");
      }
      return new IdempotencyKeys(this);
    }
  }
}
