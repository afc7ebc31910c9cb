package dev.siglo.consumer.engine;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.error.CrashLoopException;
import dev.siglo.consumer.error.IdempotencyConflictException;
import dev.siglo.consumer.error.IdempotencyStoreUnavailableException;
import dev.siglo.consumer.error.SigloException;
import dev.siglo.consumer.store.ClaimResult;

/**
 * The delivery budget of one message's delivery: its deliveries are the broker's count or the
 * record's durable one, whichever is higher (Kafka's own count restarts after a crash or a
 * rebalance); a claim taken over {@code maxTakeovers} times ends it as a crash loop; a takeover
 * below that makes it run {@linkplain Isolation alone}. Used for one delivery's attempts, on the
 * thread that processes it.
 */
final class MessageBudget implements DeliveryBudget {
  private final Message message;
  private final RetryConfig retry;
  private final ErrorClassifier classifier;
  private int attempt = 1;
  private int durable;
  private boolean alone;

  MessageBudget(Message message, RetryConfig retry, ErrorClassifier classifier) {
    this.message = message;
    this.retry = retry;
    this.classifier = classifier;
  }

  /** The in-process attempt of this delivery about to run (1 for the first). */
  void attempt(int attempt) {
    this.attempt = attempt;
  }

  @Override
  public boolean newDelivery() {
    return attempt == 1 && !alone; // the claim made alone repeats the suspect's, counted once
  }

  @Override
  public void claimed(ClaimResult.Claimed claim) {
    durable = claim.deliveries();
    if (claim.takeovers() >= retry.maxTakeovers()) {
      throw new CrashLoopException(
          "the claim of "
              + message
              + " was taken over from a dead holder "
              + claim.takeovers()
              + " times (maxTakeovers "
              + retry.maxTakeovers()
              + "): whatever runs it dies");
    }
    if (claim.takeover() && !alone) {
      // its holder died: maybe of this message. Run it alone, so a crash is blamed on it only
      alone = true;
      throw new Isolation.RunAlone();
    }
  }

  @Override
  public boolean lastChance(Exception failure) {
    return attempt >= retry.maxAttempts()
        && deliveries() >= retry.maxDeliveries()
        && !isInfrastructure(failure)
        && classifier.classify(failure) != ErrorClass.PERMANENT
        && !Thread.currentThread().isInterrupted();
  }

  /**
   * @return the deliveries of the message so far, this one included
   */
  int deliveries() {
    return Math.max(message.deliveryAttempt(), durable);
  }

  /** Siglo's own infrastructure failed, not the message: never counted, never dead-lettered. */
  private static boolean isInfrastructure(Throwable failure) {
    return SigloException.findCause(failure, IdempotencyStoreUnavailableException.class) != null
        || SigloException.findCause(failure, IdempotencyConflictException.class) != null;
  }
}
