package dev.siglo.consumer.store;

import dev.siglo.consumer.error.OutcomeEncodingException;
import dev.siglo.consumer.error.OutcomeTooLargeException;

/**
 * Turns outcomes into bytes for storage and back. The default is {@link JsonOutcomeCodec}; Java
 * serialization is never used. Implementations must be thread-safe.
 */
public interface OutcomeCodec {

  /**
   * @param outcome the outcome
   * @return its encoding
   * @throws OutcomeTooLargeException when the encoding is over the codec's size limit
   * @throws OutcomeEncodingException when the outcome cannot be encoded
   */
  byte[] encode(Outcome outcome);

  /**
   * @param bytes an encoding produced by {@link #encode}
   * @return the outcome
   * @throws dev.siglo.consumer.error.UnreadableOutcomeException when the bytes are not a valid
   *     encoding (the engine then dead-letters the message as unprocessable, never caching a
   *     decline)
   */
  Outcome decode(byte[] bytes);
}
