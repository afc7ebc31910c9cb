package dev.siglo.kafka.internal;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.error.SigloException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a record through the engine on a worker thread, then publishes the dead letter its
 * disposition asks for and waits for the broker's acknowledgement, so the poll thread marks the
 * offset complete only once the dead letter is durable. A failed publish becomes a retry of the
 * record, except one the broker refuses for good (the consumer's principal may not write to the
 * dead-letter topic, or the topic was deleted): retrying it would hold the record's lane and the
 * commit point for ever, so it stops the consumer with a configuration error naming the topic. An
 * {@link Error} is handed back as fatal. Thread-safe.
 */
final class EngineRunner implements RecordRunner {
  private static final Logger log = LoggerFactory.getLogger(EngineRunner.class);
  private static final Duration PUBLISH_RETRY_DELAY = Duration.ofSeconds(1);

  private final MessageProcessor processor;
  private final DeadLetterSink deadLetters;
  private final boolean deadLetterDeclines;
  private final boolean optionalTopic;

  /**
   * @param processor the engine
   * @param deadLetters the dead-letter publisher
   * @param deadLetterDeclines whether fresh permanent declines are copied to the dead-letter topic
   */
  EngineRunner(MessageProcessor processor, DeadLetterSink deadLetters, boolean deadLetterDeclines) {
    this(processor, deadLetters, deadLetterDeclines, false);
  }

  /**
   * @param processor the engine
   * @param deadLetters the dead-letter publisher
   * @param deadLetterDeclines whether fresh permanent declines are copied to the dead-letter topic
   * @param optionalTopic whether a record whose dead-letter topic is {@code null} has none (nothing
   *     is published; the share runtime rejects it) rather than a publish that fails
   */
  EngineRunner(
      MessageProcessor processor,
      DeadLetterSink deadLetters,
      boolean deadLetterDeclines,
      boolean optionalTopic) {
    this.processor = processor;
    this.deadLetters = deadLetters;
    this.deadLetterDeclines = deadLetterDeclines;
    this.optionalTopic = optionalTopic;
  }

  @Override
  public Completion run(Work w, int attempt) {
    try {
      Disposition d =
          processor.process(
              RecordMapper.toMessage(w.record, attempt), found -> deadLetter(w, found, attempt));
      return new Completion(w, d, null);
    } catch (Exception e) {
      return new Completion(w, publishFailed(w, e), null);
    } catch (Throwable t) {
      return new Completion(w, null, t);
    }
  }

  /**
   * Runs a batch through the engine ({@link MessageProcessor#processAll}), then publishes each
   * record's dead letter: a failed publish makes only that record a retry. An {@link Error} is
   * handed back as fatal for every record of the batch.
   */
  @Override
  public List<Completion> runAll(List<Work> batch) {
    List<Message> messages = new ArrayList<>(batch.size());
    for (Work w : batch) {
      messages.add(RecordMapper.toMessage(w.record, w.dispatchedAttempt));
    }
    List<Completion> out = new ArrayList<>(batch.size());
    try {
      List<Disposition> ds =
          processor.processAll(
              messages,
              (i, d) -> {
                Work w = batch.get(i);
                try {
                  deadLetter(w, d, w.dispatchedAttempt);
                  return d;
                } catch (Exception e) {
                  return publishFailed(w, e);
                }
              });
      for (int i = 0; i < batch.size(); i++) {
        out.add(new Completion(batch.get(i), ds.get(i), null));
      }
    } catch (Throwable t) {
      for (Work w : batch) {
        out.add(new Completion(w, null, t));
      }
    }
    return out;
  }

  /**
   * The answer for a record whose dead letter could not be published: a retry, whose cause is a
   * configuration error (stopping the consumer) when the broker refused it for good.
   */
  private Disposition publishFailed(Work w, Exception e) {
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new Disposition.NackRetry(PUBLISH_RETRY_DELAY, e, 0);
    }
    Throwable refused = refusedForGood(e);
    if (refused != null) {
      return new Disposition.NackRetry(
          PUBLISH_RETRY_DELAY,
          new SigloConfigurationException(
              "the dead letter of "
                  + w
                  + " cannot be published to '"
                  + deadLetters.topicFor(w.record)
                  + "': "
                  + refused,
              e),
          0);
    }
    log.warn("{}: dead-letter publish failed ({}); will retry", w, e.toString());
    return new Disposition.NackRetry(PUBLISH_RETRY_DELAY, e, 0);
  }

  /** Publishes the dead letter a disposition asks for, as a span of the message's trace. */
  private void deadLetter(Work w, Disposition d, int attempt) throws Exception {
    if (optionalTopic && deadLetters.topicFor(w.record) == null) {
      return;
    }
    if (d instanceof Disposition.DeadLetter dl) {
      processor.deadLettering(
          deadLetters.topicFor(w.record),
          () -> {
            deadLetters.publish(w.record, dl.reason().name(), dl.errorClass(), dl.cause(), attempt);
            return null;
          });
    } else if (d instanceof Disposition.AckDeclined declined
        && deadLetterDeclines
        && !declined.replayed()) {
      processor.deadLettering(
          deadLetters.topicFor(w.record),
          () -> {
            deadLetters.publish(
                w.record, "DECLINED", ErrorClass.PERMANENT, declined.cause(), attempt);
            return null;
          });
    }
  }

  /** A refusal no retry can change: not authorized, or the topic is gone or invalid. */
  private static Throwable refusedForGood(Throwable e) {
    Throwable t = SigloException.findCause(e, AuthorizationException.class);
    if (t == null) {
      t = SigloException.findCause(e, UnknownTopicOrPartitionException.class);
    }
    return t != null ? t : SigloException.findCause(e, InvalidTopicException.class);
  }
}
