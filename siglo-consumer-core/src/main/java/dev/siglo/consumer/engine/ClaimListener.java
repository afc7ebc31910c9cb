package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.store.ClaimToken;

/**
 * The runtime SPI's claim hook: told which claim a message holds once the engine has claimed its
 * key and before the handler runs, so a runtime can renew the claim's lease while the handler works
 * (the SQS runtime's visibility heartbeat does). Called on the thread that processes the message;
 * an implementation must be quick and must not throw.
 */
@FunctionalInterface
public interface ClaimListener {
  /** A listener that ignores every claim. */
  ClaimListener NONE = (message, key, token) -> {};

  /**
   * @param message the message being processed
   * @param key the built idempotency key the engine claimed
   * @param token the claim's fencing token
   */
  void claimed(Message message, String key, ClaimToken token);
}
