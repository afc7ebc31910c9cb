package dev.siglo.consumer.store;

import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The owner token (fencing token) of a claim. Only the holder of the token that currently holds a
 * key's claim may {@code complete}, {@code fail} or renew it; a holder whose lease expired and was
 * taken over gets {@link IdempotencyLeaseLostException} and changes nothing.
 *
 * <p>Tokens are opaque 128-bit random values rendered as 32 hex characters, so they can be stored
 * in any backend and passed to downstream systems that want to fence stale writers.
 *
 * @param value the token text; never blank
 */
public record ClaimToken(String value) {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  /**
   * Validates the value.
   *
   * @param value see the record component
   */
  public ClaimToken {
    Objects.requireNonNull(value, "value");
    if (value.isBlank()) {
      throw new IllegalArgumentException("claim token must not be blank");
    }
  }

  /**
   * @return a new random token
   */
  public static ClaimToken random() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return new ClaimToken(HEX.formatHex(bytes));
  }

  @Override
  public String toString() {
    return value;
  }

  /**
   * The failure of a fenced operation on a key this token no longer holds.
   *
   * @param key the key
   * @return the exception to throw
   */
  public IdempotencyLeaseLostException notHeldOn(String key) {
    return new IdempotencyLeaseLostException(
        "claim on key '"
            + key
            + "' is not held by token "
            + this
            + " (released, completed or taken over)");
  }
}
