package dev.siglo.kafka.internal;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a record through the engine on a worker thread, then publishes the dead letter its
 * disposition asks for and waits for the broker's acknowledgement, so the poll thread marks the
 * offset complete only once the dead letter is durable. A failed publish becomes a retry of the
 * record; an {@link Error} is handed back as fatal. Thread-safe.
 */
final class EngineRunner implements RecordRunner {
  private static final Logger log = LoggerFactory.getLogger(EngineRunner.class);
  private static final Duration PUBLISH_RETRY_DELAY = Duration.ofSeconds(1);

  private final MessageProcessor processor;
  private final DeadLetterPublisher deadLetters;
  private final boolean deadLetterDeclines;

  /**
   * @param processor the engine
   * @param deadLetters the dead-letter publisher
   * @param deadLetterDeclines whether fresh permanent declines are copied to the dead-letter topic
   */
  EngineRunner(
      MessageProcessor processor, DeadLetterPublisher deadLetters, boolean deadLetterDeclines) {
    this.processor = processor;
    this.deadLetters = deadLetters;
    this.deadLetterDeclines = deadLetterDeclines;
  }

  @Override
  public Completion run(Work w, int attempt) {
    try {
      Disposition d = processor.process(RecordMapper.toMessage(w.record, attempt));
      if (d instanceof Disposition.DeadLetter dl) {
        deadLetters.publish(w.record, dl.reason().name(), dl.errorClass(), dl.cause(), attempt);
      } else if (d instanceof Disposition.AckDeclined declined
          && deadLetterDeclines
          && !declined.replayed()) {
        deadLetters.publish(w.record, "DECLINED", ErrorClass.PERMANENT, declined.cause(), attempt);
      }
      return new Completion(w, d, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Completion(w, new Disposition.NackRetry(PUBLISH_RETRY_DELAY, e, 0), null);
    } catch (Exception e) {
      log.warn("{}: dead-letter publish failed ({}); will retry", w, e.toString());
      return new Completion(w, new Disposition.NackRetry(PUBLISH_RETRY_DELAY, e, 0), null);
    } catch (Throwable t) {
      return new Completion(w, null, t);
    }
  }
}
