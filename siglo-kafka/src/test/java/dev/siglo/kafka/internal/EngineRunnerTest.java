package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.DeadLetterReason;
import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.error.PayloadDecodingException;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.support.ManualTime;
import dev.siglo.kafka.Ordering;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/**
 * The engine runner's dead-letter publish: a publish that times out is retried, one the broker
 * refuses for good stops the consumer with a configuration error naming the dead-letter topic
 * instead of holding the record's lane for ever.
 */
class EngineRunnerTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private final MessageProcessor poison =
      message ->
          new Disposition.DeadLetter(
              DeadLetterReason.POISON_PAYLOAD,
              ErrorClass.PERMANENT,
              new PayloadDecodingException("not JSON", null),
              0);
  private final AtomicInteger publishes = new AtomicInteger();

  private Work work() {
    return new Work(
        new ConsumerRecord<>(TP.topic(), TP.partition(), 0L, null, new byte[0]),
        TP,
        new LaneKey(TP, null, 0L));
  }

  private EngineRunner runner(Exception failure) {
    return new EngineRunner(
        poison,
        new DeadLetterSink() {
          @Override
          public void publish(
              ConsumerRecord<byte[], byte[]> record,
              String reason,
              ErrorClass errorClass,
              Throwable cause,
              int attempts)
              throws Exception {
            publishes.incrementAndGet();
            throw failure;
          }

          @Override
          public String topicFor(ConsumerRecord<byte[], byte[]> record) {
            return "orders-dlt";
          }
        },
        false);
  }

  @Test
  void aPublishThatTimesOutIsRetried() {
    Completion c = runner(new TimeoutException("no ack in 30 s")).run(work(), 1);

    assertThat(c.disposition()).isInstanceOf(Disposition.NackRetry.class);
    assertThat(SigloConfigurationException.in(((Disposition.NackRetry) c.disposition()).cause()))
        .isNull();
  }

  @Test
  void aPublishTheBrokerRefusesForGoodStopsTheConsumerNamingTheTopic() {
    Completion c =
        runner(new ExecutionException(new TopicAuthorizationException("orders-dlt")))
            .run(work(), 1);

    OffsetCommitter offsets =
        new OffsetCommitter(java.time.Duration.ofSeconds(1), new ManualTime(), null);
    MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    consumer.assign(List.of(TP));
    offsets.assigned(List.of(TP));
    offsets.received(TP, 0);
    Dispatcher d =
        new Dispatcher(
            Ordering.KEY,
            1,
            Runnable::run,
            (w, attempt) -> c,
            offsets,
            new ManualTime(),
            new SwitchGate(),
            0,
            java.time.Duration.ZERO);
    d.add(c.work().record, TP);
    d.dispatch();

    assertThatThrownBy(() -> d.drainCompletions(0))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("orders-dlt")
        .hasMessageContaining("TopicAuthorizationException");
    assertThat(publishes).hasValue(1);
  }
}
