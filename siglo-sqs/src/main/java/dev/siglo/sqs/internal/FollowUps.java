package dev.siglo.sqs.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * What the SQS runtime does with a message's disposition: queues its delete or visibility change
 * for the flushers, sends its dead letter (as a span of its trace) first. Thread-safe.
 */
final class FollowUps {
  private static final Logger log = LoggerFactory.getLogger(SqsRuntime.class);

  private final QueueActions actions;
  private final SqsRuntimeConfig settings;
  private final MessageProcessor processor;
  private final String queueName;
  private final Consumer<Throwable> fatal;

  /**
   * @param fatal stops the consumer on a configuration error
   */
  FollowUps(
      QueueActions actions,
      SqsRuntimeConfig settings,
      MessageProcessor processor,
      String queueName,
      Consumer<Throwable> fatal) {
    this.actions = actions;
    this.settings = settings;
    this.processor = processor;
    this.queueName = queueName;
    this.fatal = fatal;
  }

  /**
   * Applies a disposition: delete ({@code Ack}, {@code AckDeclined}, a dead letter sent), a
   * visibility change ({@code NackRetry}; a configuration error in its cause stops the consumer),
   * or, without a dead-letter queue, visibility 0 for the queue's redrive policy.
   *
   * @throws Exception when a request failed
   */
  void apply(Message m, Disposition d, int attempts) throws Exception {
    if (d instanceof Disposition.Ack) {
      actions.delete(m);
    } else if (d instanceof Disposition.AckDeclined declined) {
      if (settings.deadLetterDeclines()
          && settings.deadLetterQueueUrl() != null
          && !declined.replayed()) {
        processor.deadLettering(
            deadLetterQueueName(),
            () -> {
              actions.sendToDeadLetterQueue(
                  m, "DECLINED", ErrorClass.PERMANENT, declined.cause(), attempts);
              return null;
            });
      }
      actions.delete(m);
    } else if (d instanceof Disposition.NackRetry nack) {
      SigloConfigurationException broken = SigloConfigurationException.in(nack.cause());
      if (broken != null) {
        fatal.accept(broken);
      }
      actions.changeVisibility(m, nack.delay());
    } else if (d instanceof Disposition.DeadLetter dead) {
      if (settings.deadLetterQueueUrl() != null) {
        processor.deadLettering(
            deadLetterQueueName(),
            () -> {
              actions.sendToDeadLetterQueue(
                  m, dead.reason().name(), dead.errorClass(), dead.cause(), attempts);
              return null;
            });
        actions.delete(m);
      } else {
        // no explicit dead-letter queue: the queue's redrive policy moves it after maxReceiveCount
        actions.changeVisibility(m, Duration.ZERO);
      }
    }
  }

  private String deadLetterQueueName() {
    String url = settings.deadLetterQueueUrl();
    return url.substring(url.lastIndexOf('/') + 1);
  }

  /**
   * Applies a disposition, or answers with a retry when that failed (the message becomes visible
   * again after its timeout). Never throws.
   */
  Disposition applyOrRetry(Message m, Disposition d, int attempts) {
    try {
      apply(m, d, attempts);
      return d;
    } catch (Exception e) {
      return notApplied(m, e);
    }
  }

  /** A message whose disposition could not be applied: visible again after its timeout. */
  Disposition notApplied(Message m, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
    }
    log.warn(
        "message {} of {}: {}; it becomes visible again after its timeout",
        m.messageId(),
        queueName,
        e.toString());
    return new Disposition.NackRetry(settings.visibilityTimeout(), e, 0);
  }
}
