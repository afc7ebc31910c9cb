package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import java.util.List;

/**
 * One message of a batch on its way through the engine ({@link BatchRunner}, {@link BatchCall}) and
 * where it stands: decoded, resolved, claimed; its final disposition once it has one, or its
 * transient failure in the current attempt. Used by one thread at a time.
 *
 * @param <T> the decoded payload type
 */
final class BatchEntry<T> {
  final Message message;
  final MessageBudget budget;
  T value;
  boolean decoded;
  Preparer.Resolved resolved;
  ClaimRequest request;
  ClaimResult.Claimed claim;
  boolean waited;

  /** Its final answer, once it has one. */
  Disposition disposition;

  /** Its transient failure in the current attempt. */
  Exception failure;

  BatchEntry(Message message, MessageBudget budget) {
    this.message = message;
    this.budget = budget;
  }

  String key() {
    return resolved instanceof Preparer.Keyed k ? k.key() : null;
  }

  boolean open() {
    return disposition == null && failure == null;
  }

  /** Every entry without an answer yet fails with {@code e} (an interrupt is kept). */
  static <T> void failOpen(List<BatchEntry<T>> entries, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    for (BatchEntry<T> i : entries) {
      if (i.open()) {
        i.failure = e;
      }
    }
  }
}
