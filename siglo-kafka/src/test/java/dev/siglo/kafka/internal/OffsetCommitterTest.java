package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.consumer.support.ManualTime;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.clients.consumer.RetriableCommitFailedException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The commit side of the poll thread at the default commit interval, on injected time. */
class OffsetCommitterTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final Duration INTERVAL = SigloKafkaConsumer.DEFAULT_COMMIT_INTERVAL;

  private final ManualTime time = new ManualTime();
  private final AtomicInteger failNextAsyncCommits = new AtomicInteger();
  private final MockConsumer<byte[], byte[]> consumer =
      new MockConsumer<>("earliest") {
        @Override
        public synchronized void commitAsync(
            Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
          if (failNextAsyncCommits.getAndDecrement() > 0) {
            callback.onComplete(offsets, new RetriableCommitFailedException("broker unreachable"));
            return;
          }
          super.commitAsync(offsets, callback);
        }
      };
  private final OffsetCommitter offsets = new OffsetCommitter(INTERVAL, time, null);

  @BeforeEach
  void assign() {
    consumer.assign(List.of(TP));
    offsets.assigned(List.of(TP));
  }

  private long committed() {
    OffsetAndMetadata o = consumer.committed(Set.of(TP)).get(TP);
    return o == null ? -1 : o.offset();
  }

  private void receive(long from, long to) {
    for (long o = from; o < to; o++) {
      assertThat(offsets.received(TP, o)).isTrue();
    }
  }

  @Test
  void onlyTheCompletedPrefixIsCommittedAndOnlyOnceTheIntervalHasPassed() {
    receive(0, 5);
    offsets.completed(TP, 0);
    offsets.completed(TP, 1);
    offsets.completed(TP, 3);

    offsets.commitIfDue(consumer);
    assertThat(committed()).as("the interval has not passed").isEqualTo(-1);
    time.advance(INTERVAL.minusNanos(1));
    offsets.commitIfDue(consumer);
    assertThat(committed()).isEqualTo(-1);
    time.advance(Duration.ofNanos(1));
    offsets.commitIfDue(consumer);
    assertThat(committed()).as("offset 2 is still running").isEqualTo(2);

    offsets.completed(TP, 2);
    offsets.completed(TP, 4);
    time.advance(INTERVAL);
    offsets.commitIfDue(consumer);
    assertThat(committed()).isEqualTo(5);
  }

  @Test
  void aFailedAsynchronousCommitIsSentAgainAtTheNextInterval() {
    receive(0, 3);
    offsets.completed(TP, 0);
    offsets.completed(TP, 1);
    offsets.completed(TP, 2);
    failNextAsyncCommits.set(1);

    time.advance(INTERVAL);
    offsets.commitIfDue(consumer);
    assertThat(committed()).isEqualTo(-1);
    time.advance(INTERVAL);
    offsets.commitIfDue(consumer);

    assertThat(committed())
        .as("no new record completed, yet the offset is sent again")
        .isEqualTo(3);
  }

  @Test
  void aSynchronousCommitCommitsTheCommitPointAtOnce() {
    receive(0, 2);
    offsets.completed(TP, 0);

    offsets.commitSync(consumer, Set.of(TP));

    assertThat(committed()).isEqualTo(1);
  }

  @Test
  void recordsOfUnassignedPartitionsOrStillInFlightAreNotTrackedTwice() {
    receive(0, 1);

    assertThat(offsets.received(TP, 0)).as("fetched again while in flight").isFalse();
    assertThat(offsets.received(new TopicPartition("orders", 1), 0)).isFalse();
    offsets.removed(List.of(TP));
    assertThat(offsets.owns(TP)).isFalse();
    assertThat(offsets.received(TP, 1)).isFalse();
  }
}
