package dev.siglo.consumer.store;

import dev.siglo.consumer.error.IdempotencyLeaseLostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The owner token (fencing token) of a claim. Only the holder of the token that currently holds a
 * key's claim may {@code complete}, {@code fail} or renew it; a holder whose lease expired and was
 * taken over gets {@link IdempotencyLeaseLostException} and changes nothing.
 *
 * <p>Tokens are opaque 128-bit values rendered as 32 hex characters, so they can be stored in any
 * backend and passed to downstream systems that want to fence stale writers. {@link #random()}
 * makes them from a 64-bit prefix drawn from {@link SecureRandom} once per process and a 64-bit
 * counter, so they are unique across processes (two processes share a prefix with a probability of
 * 2<sup>-64</sup>) and never repeat within one, without a {@code SecureRandom} call per claim. They
 * fence; they are not secrets.
 *
 * @param value the token text; never blank
 */
public record ClaimToken(String value) {
  private static final HexFormat HEX = HexFormat.of();
  private static final String PROCESS = HEX.toHexDigits(new SecureRandom().nextLong());
  private static final AtomicLong NEXT = new AtomicLong(new SecureRandom().nextLong());

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
   * @return a new token, unique across processes and never repeated within this one
   */
  public static ClaimToken random() {
    return new ClaimToken(PROCESS.concat(HEX.toHexDigits(NEXT.getAndIncrement())));
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
