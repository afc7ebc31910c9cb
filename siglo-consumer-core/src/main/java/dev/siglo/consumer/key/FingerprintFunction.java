package dev.siglo.consumer.key;

import dev.siglo.consumer.Message;

/**
 * Computes the payload fingerprint stored with a claim. A later claim of the same key with a
 * different fingerprint is a key reuse and is rejected. Implementations must be thread-safe; an
 * exception makes the message poison.
 */
@FunctionalInterface
public interface FingerprintFunction {

  /**
   * @param message the message
   * @param value the decoded payload, may be {@code null}
   * @return the fingerprint (for example SHA-256 hex), or {@code null} to skip the check
   * @throws Exception when the payload cannot be fingerprinted
   */
  String fingerprint(Message message, Object value) throws Exception;
}
