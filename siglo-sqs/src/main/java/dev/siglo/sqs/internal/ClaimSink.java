package dev.siglo.sqs.internal;

/** Told which claim a running message holds, so the heartbeat can renew its lease. */
@FunctionalInterface
public interface ClaimSink {
  /**
   * @param messageId the SQS message id
   * @param key the built idempotency key, or null
   * @param token the claim token, or null
   */
  void claimed(String messageId, String key, String token);
}
