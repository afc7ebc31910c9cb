package dev.siglo.consumer.error;

import dev.siglo.consumer.store.ClaimToken;

/**
 * The caller's claim is no longer held by its token: its lease expired and another caller took it
 * over, or it was released or completed. The store changed nothing. Transient: a retry finds the
 * record completed by the new owner (and settles on it) or claims it afresh.
 */
public class IdempotencyLeaseLostException extends TransientException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, naming the key but never a payload or credential
   */
  public IdempotencyLeaseLostException(String message) {
    super(message);
  }

  /**
   * Creates the exception with a cause.
   *
   * @param message what happened, naming the key but never a payload or credential
   * @param cause the underlying failure
   */
  public IdempotencyLeaseLostException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The exception a store throws when a token does not hold a key's claim.
   *
   * @param key the key
   * @param token the token that tried to complete, fail or renew
   * @return the exception, naming the key and the token
   */
  public static IdempotencyLeaseLostException notHeld(String key, ClaimToken token) {
    return new IdempotencyLeaseLostException(
        "claim on key '"
            + key
            + "' is not held by token "
            + token
            + " (released, completed or taken over)");
  }
}
