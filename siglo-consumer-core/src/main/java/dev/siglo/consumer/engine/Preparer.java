package dev.siglo.consumer.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.Message;
import dev.siglo.consumer.classify.Classification;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.error.InvalidIdempotencyKeyException;
import dev.siglo.consumer.error.MissingIdempotencyKeyException;
import dev.siglo.consumer.error.PayloadDecodingException;
import dev.siglo.consumer.key.MissingKeyPolicy;
import java.nio.charset.CharacterCodingException;

/**
 * Prepares a delivered message for its claim: decodes its payload, then finds its idempotency key
 * and payload fingerprint (extracts the raw key, applies the missing-key policy, builds the store
 * key, fingerprints the payload). A message that fails any of it is poison, answered with its dead
 * letter, except a decoder failure that a classification rule calls transient (its dependency, a
 * schema registry say, failed), which is retried. Stateless and thread-safe.
 *
 * @param <T> the decoded payload type
 */
final class Preparer<T> {

  /** What a message resolved to. */
  sealed interface Resolved permits Keyed, Unkeyed, Rejected {}

  /** The message's store key and fingerprint ({@code null}: no key-reuse check). */
  record Keyed(String key, String fingerprint) implements Resolved {}

  /** No key, and the policy processes such messages without idempotency. */
  record Unkeyed() implements Resolved {
    static final Unkeyed INSTANCE = new Unkeyed();
  }

  /** Poison: the dead letter to answer with. */
  record Rejected(Disposition disposition) implements Resolved {}

  private final MessageProcessorConfig<T> config;
  private final Verdicts verdicts;

  Preparer(MessageProcessorConfig<T> config, Verdicts verdicts) {
    this.config = config;
    this.verdicts = verdicts;
  }

  /**
   * A decoder failure is retried only when a classification rule says it is transient and it is not
   * a parse error: malformed bytes stay poison however the classifier's default is set.
   */
  boolean isTransientDecodeFailure(Exception e) {
    Classification c = config.classifier().classifyDetailed(e);
    return c.errorClass() == ErrorClass.TRANSIENT
        && !c.byDefault()
        && !(c.decisive() instanceof JsonProcessingException)
        && !(c.decisive() instanceof CharacterCodingException);
  }

  /** The dead letter of a message whose payload could not be decoded. */
  Disposition poison(Message message, Exception e) {
    return verdicts.deadLetter(
        message,
        null,
        DeadLetterReason.POISON_PAYLOAD,
        new PayloadDecodingException("payload of " + message + " could not be decoded: " + e, e),
        0);
  }

  Resolved resolve(Message message, T value) {
    String rawKey;
    try {
      rawKey = config.keyExtractor().extract(message, value).filter(k -> !k.isBlank()).orElse(null);
    } catch (Exception e) {
      return reject(
          message,
          null,
          DeadLetterReason.MISSING_KEY,
          new MissingIdempotencyKeyException(
              "key extractor ("
                  + config.keyExtractor().describe()
                  + ") failed on "
                  + message
                  + ": "
                  + e,
              e));
    }
    if (rawKey == null) {
      if (config.missingKeyPolicy() == MissingKeyPolicy.REJECT) {
        return reject(
            message,
            null,
            DeadLetterReason.MISSING_KEY,
            new MissingIdempotencyKeyException(
                "no idempotency key in " + config.keyExtractor().describe() + " of " + message));
      }
      return Unkeyed.INSTANCE;
    }
    String key;
    try {
      key = config.keys().key(rawKey);
    } catch (InvalidIdempotencyKeyException e) {
      return reject(message, null, DeadLetterReason.INVALID_KEY, e);
    }
    try {
      return new Keyed(key, config.fingerprint().fingerprint(message, value));
    } catch (Exception e) {
      return reject(
          message,
          key,
          DeadLetterReason.POISON_PAYLOAD,
          new PayloadDecodingException(
              "payload of " + message + " could not be fingerprinted: " + e, e));
    }
  }

  private Rejected reject(Message message, String key, DeadLetterReason reason, Exception cause) {
    return new Rejected(verdicts.deadLetter(message, key, reason, cause, 0));
  }
}
