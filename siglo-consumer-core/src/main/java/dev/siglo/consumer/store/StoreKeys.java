package dev.siglo.consumer.store;

import dev.siglo.consumer.error.InvalidIdempotencyKeyException;

/**
 * The rules every store applies to the keys handed to it. Store implementations call {@link
 * #requireValid(String)} before touching their backend, so a hostile key is rejected the same way
 * by every store. Stateless and thread-safe.
 */
public final class StoreKeys {
  /** The longest key a store accepts, in characters. */
  public static final int MAX_LENGTH = 1024;

  private static final char REPLACEMENT_CHARACTER = '\uFFFD';

  private StoreKeys() {}

  /**
   * Checks a key handed to a store: not null, not blank, at most {@link #MAX_LENGTH} characters, no
   * control or format characters. Store implementations call this before touching their backend.
   *
   * @param key the key
   * @return the key
   * @throws InvalidIdempotencyKeyException when the key is invalid
   */
  public static String requireValid(String key) {
    if (key == null) {
      throw new InvalidIdempotencyKeyException("store key is null");
    }
    if (key.isBlank()) {
      throw new InvalidIdempotencyKeyException("store key is blank");
    }
    if (key.length() > MAX_LENGTH) {
      throw new InvalidIdempotencyKeyException(
          "store key is "
              + key.length()
              + " characters, over the limit of "
              + MAX_LENGTH
              + " (build keys with IdempotencyKeys, which digests long keys)");
    }
    requireNoControlCharacters(key, "store key");
    return key;
  }

  /**
   * Rejects control, format, separator, private-use and unpaired surrogate characters, and U+FFFD:
   * the replacement character is what bytes that are not UTF-8 decode to, so two different raw keys
   * (a Kafka record key or header, say) would share one store key and one would be suppressed as a
   * duplicate of the other.
   *
   * @param s the text to check
   * @param what what the text is, for the error message
   * @throws InvalidIdempotencyKeyException when the text contains such a character
   */
  public static void requireNoControlCharacters(String s, String what) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c < 0x7F) {
        continue; // printable ASCII, the usual key: none of the classes below
      }
      if (c == REPLACEMENT_CHARACTER) {
        throw new InvalidIdempotencyKeyException(
            String.format(
                "%s contains U+FFFD at index %d: bytes that are not UTF-8 cannot be told apart",
                what, i));
      }
      int type = Character.getType(c);
      boolean bad =
          type == Character.CONTROL
              || type == Character.FORMAT
              || type == Character.LINE_SEPARATOR
              || type == Character.PARAGRAPH_SEPARATOR
              || type == Character.PRIVATE_USE
              || type == Character.UNASSIGNED && Character.isSurrogate(c);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
          continue;
        }
        bad = true;
      } else if (Character.isLowSurrogate(c)) {
        bad = true;
      }
      if (bad) {
        throw new InvalidIdempotencyKeyException(
            String.format(
                "%s contains a control or format character U+%04X at index %d", what, (int) c, i));
      }
    }
  }
}
