package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import dev.siglo.kafka.Ordering;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Lanes, hand-off and completions without a broker: workers run inline (or when the test says), the
 * runner answers from a script, retry delays pass on injected time.
 */
class DispatcherTest {
  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final Disposition ACK =
      new Disposition.Ack(Disposition.AckReason.PROCESSED, new Outcome.Success("null"));

  private final ManualTime time = new ManualTime();
  private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
  private final OffsetCommitter offsets = new OffsetCommitter(Duration.ofSeconds(1), time, null);
  private final List<String> runs = new CopyOnWriteArrayList<>();
  private final Map<Long, ArrayDeque<Disposition>> script = new HashMap<>();
  private final RecordRunner runner =
      (w, attempt) -> {
        runs.add(w.offset() + "@" + attempt);
        ArrayDeque<Disposition> answers = script.get(w.offset());
        Disposition d = answers == null || answers.isEmpty() ? ACK : answers.poll();
        return new Completion(w, d, null);
      };

  private final SwitchGate gate = new SwitchGate();

  DispatcherTest() {
    consumer.assign(List.of(TP));
    offsets.assigned(List.of(TP));
  }

  private Dispatcher dispatcher(Ordering ordering, Executor workers) {
    return new Dispatcher(ordering, 4, workers, runner, offsets, time, gate, 0, Duration.ZERO);
  }

  private void poll(Dispatcher d, long offset, String key) {
    byte[] k = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    if (offsets.received(TP, offset)) {
      d.add(new ConsumerRecord<>(TP.topic(), TP.partition(), offset, k, new byte[0]), TP);
    }
  }

  private long committed() {
    offsets.commitSync(consumer, Set.of(TP));
    OffsetAndMetadata o = consumer.committed(Set.of(TP)).get(TP);
    return o == null ? -1 : o.offset();
  }

  @Test
  void recordsOfOneKeyRunOneAtATimeInOffsetOrderWhileOtherKeysRunAtOnce() {
    Dispatcher d = dispatcher(Ordering.KEY, Runnable::run);
    poll(d, 0, "a");
    poll(d, 1, "a");
    poll(d, 2, "b");

    d.dispatch();
    assertThat(runs).containsExactly("0@1", "2@1");
    d.drainCompletions(0);
    d.dispatch();
    assertThat(runs).containsExactly("0@1", "2@1", "1@1");
    d.drainCompletions(0);

    assertThat(committed()).isEqualTo(3);
    assertThat(d.buffered()).isZero();
  }

  @Test
  void keysCompareAsBytesNotAsDecodedText() {
    Dispatcher d = dispatcher(Ordering.KEY, Runnable::run);
    byte[] first = {(byte) 0xC3};
    byte[] second = {(byte) 0xC4};
    for (long o = 0; o < 2; o++) {
      offsets.received(TP, o);
      d.add(
          new ConsumerRecord<>(TP.topic(), TP.partition(), o, o == 0 ? first : second, new byte[0]),
          TP);
    }

    d.dispatch();

    assertThat(runs).as("two invalid UTF-8 keys are still two lanes").hasSize(2);
  }

  @Test
  void partitionOrderingRunsAPartitionOneRecordAtATime() {
    Dispatcher d = dispatcher(Ordering.PARTITION, Runnable::run);
    poll(d, 0, "a");
    poll(d, 1, "b");

    d.dispatch();
    assertThat(runs).containsExactly("0@1");
    d.drainCompletions(0);
    d.dispatch();
    assertThat(runs).containsExactly("0@1", "1@1");
  }

  @Test
  void unorderedRunsEveryRecordAtOnceEvenWithOneKey() {
    Dispatcher d = dispatcher(Ordering.UNORDERED, Runnable::run);
    poll(d, 0, "a");
    poll(d, 1, "a");

    d.dispatch();

    assertThat(runs).containsExactly("0@1", "1@1");
  }

  @Test
  void aRetriedRecordRunsAgainOnlyAfterItsDelayAndHoldsItsKeyAndTheCommitPoint() {
    Duration delay = Duration.ofSeconds(5);
    script.put(
        0L,
        new ArrayDeque<>(
            List.of(new Disposition.NackRetry(delay, new IllegalStateException("503"), 1))));
    Dispatcher d = dispatcher(Ordering.KEY, Runnable::run);
    poll(d, 0, "a");
    poll(d, 1, "a");
    poll(d, 2, "b");

    d.dispatch();
    d.drainCompletions(0);
    d.dispatch();
    assertThat(runs).containsExactly("0@1", "2@1");
    assertThat(committed()).as("offset 0 waits for its retry").isZero();
    assertThat(d.waitMillis(60_000)).isEqualTo(delay.toMillis());

    time.advance(delay.minusNanos(1));
    d.dispatch();
    assertThat(runs).hasSize(2);
    time.advance(Duration.ofNanos(1));
    d.dispatch();
    d.drainCompletions(0);
    d.dispatch();
    d.drainCompletions(0);

    assertThat(runs).containsExactly("0@1", "2@1", "0@2", "1@1");
    assertThat(committed()).isEqualTo(3);
  }

  @Test
  void anUncountedRetryRunsTheSameDeliveryAttemptAgain() {
    script.put(
        0L,
        new ArrayDeque<>(
            List.of(
                new Disposition.NackRetry(
                    Duration.ZERO, new IllegalStateException("store down"), 1, false))));
    Dispatcher d = dispatcher(Ordering.KEY, Runnable::run);
    poll(d, 0, "a");

    d.dispatch();
    d.drainCompletions(0);
    d.dispatch();
    d.drainCompletions(0);

    assertThat(runs).as("a store outage spends no delivery").containsExactly("0@1", "0@1");
    assertThat(committed()).isEqualTo(1);
  }

  @Test
  void aClosedGateStartsNothingAndARecordHandedOverBeforeItClosedWaitsForItToOpen() {
    List<Runnable> handedOver = new ArrayList<>();
    Dispatcher d = dispatcher(Ordering.KEY, handedOver::add);
    poll(d, 0, "a");
    poll(d, 1, "b");
    d.dispatch();
    gate.close("idempotency store unavailable");
    handedOver.forEach(Runnable::run);
    d.drainCompletions(0);
    poll(d, 2, "c");
    d.dispatch();

    assertThat(runs).as("nothing runs while intake is paused").isEmpty();
    assertThat(committed()).isZero();
    assertThat(d.buffered()).isEqualTo(3);

    gate.open();
    handedOver.clear();
    d.dispatch();
    handedOver.forEach(Runnable::run);
    d.drainCompletions(0);

    assertThat(runs).containsExactlyInAnyOrder("0@1", "1@1", "2@1");
    assertThat(committed()).isEqualTo(3);
  }

  @Test
  void aConfigurationErrorStopsTheConsumerInsteadOfRetrying() {
    script.put(
        0L,
        new ArrayDeque<>(
            List.of(
                new Disposition.NackRetry(
                    Duration.ofSeconds(1),
                    new IllegalStateException(new SigloConfigurationException("bad password")),
                    1))));
    Dispatcher d = dispatcher(Ordering.KEY, Runnable::run);
    poll(d, 0, "a");
    d.dispatch();

    assertThatThrownBy(() -> d.drainCompletions(0))
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessage("bad password");
  }

  @Test
  void aWorkerFailingFatallyStopsTheLoop() {
    Dispatcher d =
        new Dispatcher(
            Ordering.KEY,
            4,
            Runnable::run,
            (w, attempt) -> new Completion(w, null, new OutOfMemoryError("heap")),
            offsets,
            time,
            gate,
            0,
            Duration.ZERO);
    poll(d, 0, "a");
    d.dispatch();

    assertThatThrownBy(() -> d.drainCompletions(0))
        .isInstanceOf(IllegalStateException.class)
        .hasRootCauseInstanceOf(OutOfMemoryError.class);
  }

  @Test
  void recordsOfARevokedPartitionNotStartedYetAreDroppedAndNeverCommitted() {
    List<Runnable> handedOver = new ArrayList<>();
    Dispatcher d = dispatcher(Ordering.KEY, handedOver::add);
    poll(d, 0, "a");
    poll(d, 1, "b");
    d.dispatch();
    poll(d, 2, "a");

    d.revoking(Set.of(TP));
    handedOver.forEach(Runnable::run);
    d.drainCompletions(0);
    d.revoked(Set.of(TP));

    assertThat(runs).as("handed over before the revoke, not started").isEmpty();
    assertThat(d.inFlight()).isZero();
    assertThat(d.buffered()).isZero();
    assertThat(committed()).as("nothing past the first record, which never ran").isZero();
  }

  private final List<List<String>> batches = new CopyOnWriteArrayList<>();

  private Dispatcher batching(int size, Duration linger) {
    RecordRunner batchRunner =
        new RecordRunner() {
          @Override
          public Completion run(Work w, int attempt) {
            throw new AssertionError("a batch runtime runs batches");
          }

          @Override
          public List<Completion> runAll(List<Work> batch) {
            batches.add(batch.stream().map(w -> w.offset() + "@" + w.dispatchedAttempt).toList());
            List<Completion> out = new ArrayList<>();
            for (Work w : batch) {
              ArrayDeque<Disposition> answers = script.get(w.offset());
              Disposition d = answers == null || answers.isEmpty() ? ACK : answers.poll();
              out.add(new Completion(w, d, null));
            }
            return out;
          }
        };
    return new Dispatcher(
        Ordering.KEY, 4, Runnable::run, batchRunner, offsets, time, gate, size, linger);
  }

  @Test
  void fullBatchesGoAtOnceAndAKeysNextRecordWaitsForItsPredecessorsCompletion() {
    Dispatcher d = batching(3, Duration.ofMillis(10));
    poll(d, 0, "a");
    poll(d, 1, "b");
    poll(d, 2, "a");
    poll(d, 3, "c");
    poll(d, 4, "d");

    d.dispatch();
    assertThat(batches)
        .as("a full batch, one record per key")
        .containsExactly(List.of("0@1", "1@1", "3@1"));
    assertThat(d.forming()).as("d lingers, a's second record waits for its lane").isEqualTo(1);

    d.drainCompletions(0);
    d.dispatch();
    assertThat(batches).as("two of three: it lingers").hasSize(1);
    time.advance(Duration.ofMillis(10));
    d.dispatch();
    assertThat(batches).hasSize(2);
    assertThat(batches.get(1)).containsExactly("4@1", "2@1");
    d.drainCompletions(0);
    assertThat(committed()).isEqualTo(5);
  }

  @Test
  void aBatchThatIsNotFullIsHandedOverOnceItsLingerPassed() {
    Dispatcher d = batching(10, Duration.ofMillis(20));
    poll(d, 0, "a");
    poll(d, 1, "b");

    d.dispatch();
    assertThat(batches).isEmpty();
    assertThat(d.waitMillis(1_000)).as("the poll thread wakes for the linger").isEqualTo(20);
    time.advance(Duration.ofMillis(19));
    d.dispatch();
    assertThat(batches).isEmpty();
    time.advance(Duration.ofMillis(1));
    d.dispatch();
    assertThat(batches).containsExactly(List.of("0@1", "1@1"));
  }

  @Test
  void aRetriedRecordOfABatchHoldsTheCommitPointWhileTheOthersComplete() {
    Dispatcher d = batching(10, Duration.ZERO);
    script.put(
        1L,
        new ArrayDeque<>(
            List.of(
                new Disposition.NackRetry(
                    Duration.ofSeconds(1), new java.io.IOException("down"), 3))));
    poll(d, 0, "a");
    poll(d, 1, "b");
    poll(d, 2, "c");

    d.dispatch();
    d.drainCompletions(0);
    assertThat(committed()).as("offset 1 waits for its retry").isEqualTo(1);

    time.advance(Duration.ofSeconds(1));
    d.dispatch();
    assertThat(batches).containsExactly(List.of("0@1", "1@1", "2@1"), List.of("1@2"));
    d.drainCompletions(0);
    assertThat(committed()).isEqualTo(3);
  }

  @Test
  void revokingHandsOverALingeringBatchWhoseRecordsOfTheRevokedPartitionDoNotRun() {
    Dispatcher d = batching(10, Duration.ofSeconds(1));
    poll(d, 0, "a");
    d.dispatch();
    assertThat(d.forming()).isEqualTo(1);

    d.revoking(Set.of(TP));

    assertThat(d.forming()).isZero();
    d.drainCompletions(0);
    assertThat(batches).isEmpty();
    assertThat(d.inFlight()).isZero();
  }
}
