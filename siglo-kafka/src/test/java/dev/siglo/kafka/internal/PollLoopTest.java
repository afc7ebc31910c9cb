package dev.siglo.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.store.Outcome;
import dev.siglo.consumer.support.ManualTime;
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The poll loop on a {@link MockConsumer}: subscribe, poll, run, commit at the default interval on
 * injected time, rebalance, stop. The real-broker behaviour is covered by SigloKafkaConsumerIT.
 */
class PollLoopTest {
  private static final String TOPIC = "orders";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  private static final Disposition ACK =
      new Disposition.Ack(Disposition.AckReason.PROCESSED, new Outcome.Success("null"));

  private final ManualTime time = new ManualTime();
  private final SwitchGate gate = new SwitchGate();
  private final Map<TopicPartition, Long> commits = new ConcurrentHashMap<>();

  // metadata requests left to time out, as a broker that does not answer yet
  private final AtomicInteger metadataTimeouts = new AtomicInteger();

  /** Records every commit: MockConsumer answers {@code committed} only while assigned and open. */
  private final MockConsumer<byte[], byte[]> consumer =
      new MockConsumer<>("earliest") {
        @Override
        public synchronized Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
          if (metadataTimeouts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new org.apache.kafka.common.errors.TimeoutException(
                "Timeout expired while fetching topic metadata");
          }
          return super.listTopics(timeout);
        }

        @Override
        public synchronized void commitAsync(
            Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
          super.commitAsync(offsets, callback);
          offsets.forEach((tp, o) -> commits.merge(tp, o.offset(), Math::max));
        }
      };

  private final ExecutorService workers = Executors.newFixedThreadPool(2);
  private final CompletableFuture<Void> termination = new CompletableFuture<>();
  private final AtomicInteger runs = new AtomicInteger();
  private final Set<String> created = ConcurrentHashMap.newKeySet();
  private Thread pollThread;
  private PollLoop loop;

  @AfterEach
  void stop() throws Exception {
    if (loop != null) {
      loop.requestStop(Duration.ofSeconds(5));
      pollThread.join(TimeUnit.SECONDS.toMillis(10));
    }
    workers.shutdownNow();
  }

  private static KafkaRuntimeConfig settings(
      Duration topicCheckTimeout, boolean createDeadLetterTopics) {
    return new KafkaRuntimeConfig(
        Map.of(),
        "g",
        List.of(TOPIC),
        null,
        Ordering.KEY,
        2,
        100,
        SigloKafkaConsumer.DEFAULT_COMMIT_INTERVAL,
        SigloKafkaConsumer.DEFAULT_REBALANCE_TIMEOUT,
        topicCheckTimeout,
        t -> t + SigloKafkaConsumer.DEFAULT_DEAD_LETTER_SUFFIX,
        false,
        createDeadLetterTopics,
        Duration.ofSeconds(30),
        null,
        dev.siglo.consumer.WorkerThreads.platform(),
        dev.siglo.consumer.engine.Batching.NONE);
  }

  private void start(KafkaRuntimeConfig settings) {
    loop =
        PollLoop.of(
            settings,
            () -> consumer,
            (w, attempt) -> {
              runs.incrementAndGet();
              return new Completion(w, ACK, null);
            },
            created::addAll,
            workers,
            termination,
            time,
            gate);
    pollThread = new Thread(loop, "test-poll");
    pollThread.start();
  }

  private void topicExistsWithTwoPartitions() {
    topicWithoutDeadLetterTopic();
    consumer.updatePartitions(
        TOPIC + SigloKafkaConsumer.DEFAULT_DEAD_LETTER_SUFFIX,
        List.of(new PartitionInfo(TOPIC + "-dlt", 0, null, null, null)));
  }

  private void topicWithoutDeadLetterTopic() {
    consumer.updatePartitions(
        TOPIC,
        List.of(
            new PartitionInfo(TOPIC, 0, null, null, null),
            new PartitionInfo(TOPIC, 1, null, null, null)));
    consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
  }

  /** Assigns and adds records on the poll thread, inside its next poll. */
  private void assignAndSend(List<TopicPartition> assignment, int perPartition) {
    consumer.schedulePollTask(
        () -> {
          consumer.rebalance(assignment);
          for (TopicPartition tp : assignment) {
            for (int o = 0; o < perPartition; o++) {
              consumer.addRecord(
                  new ConsumerRecord<>(
                      tp.topic(),
                      tp.partition(),
                      o,
                      ("k" + o % 2).getBytes(StandardCharsets.UTF_8),
                      new byte[0]));
            }
          }
        });
  }

  private long committed(TopicPartition tp) {
    return commits.getOrDefault(tp, -1L);
  }

  @Test
  void recordsRunAndTheirOffsetsAreCommittedWhenTheDefaultIntervalPassesOnInjectedTime() {
    topicExistsWithTwoPartitions();
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));
    assignAndSend(List.of(P0, P1), 3);

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 6);
    assertThat(committed(P0)).as("the commit interval has not passed").isEqualTo(-1);
    time.advance(SigloKafkaConsumer.DEFAULT_COMMIT_INTERVAL);

    await().atMost(Duration.ofSeconds(10)).until(() -> committed(P0) == 3 && committed(P1) == 3);
  }

  @Test
  void whileTheGateIsClosedEveryAssignedPartitionIsPausedAndNothingRunsThenAllResume() {
    topicExistsWithTwoPartitions();
    gate.close("idempotency store unavailable");
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));
    assignAndSend(List.of(P0, P1), 3);

    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.paused().equals(Set.of(P0, P1)));
    assertThat(runs.get()).as("no record starts while intake is paused").isZero();

    gate.open();

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 6);
    await().atMost(Duration.ofSeconds(10)).until(() -> consumer.paused().isEmpty());
  }

  @Test
  void aRevokedPartitionCommitsItsCompletedRecordsBeforeItIsGivenUp() {
    topicExistsWithTwoPartitions();
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));
    assignAndSend(List.of(P0, P1), 2);
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 4);

    consumer.schedulePollTask(() -> consumer.rebalance(List.of(P1)));

    await().atMost(Duration.ofSeconds(10)).until(() -> committed(P0) == 2);
    assertThat(committed(P1)).as("kept: commits at the interval").isEqualTo(-1);
  }

  @Test
  void stopWaitsForRunningRecordsCommitsAndClosesTheConsumer() throws Exception {
    topicExistsWithTwoPartitions();
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));
    assignAndSend(List.of(P0), 4);
    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 4);

    loop.requestStop(Duration.ofSeconds(5));

    termination.get(10, TimeUnit.SECONDS);
    assertThat(committed(P0)).isEqualTo(4);
    assertThat(consumer.closed()).isTrue();
  }

  @Test
  void aMissingTopicStopsTheConsumerWithAConfigurationErrorAfterTheDefaultTopicCheckTimeout() {
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));

    assertThatThrownBy(() -> termination.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("[orders] do not exist");
    assertThat(time.slept())
        .as("checked every 500 ms for the whole timeout, on injected time")
        .isBetween(
            SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT,
            SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT.plusMillis(500));
  }

  @Test
  void metadataRequestsThatTimeOutAreAskedAgainAndTheConsumerRuns() {
    topicExistsWithTwoPartitions();
    metadataTimeouts.set(3);
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));
    assignAndSend(List.of(P0, P1), 2);

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 4);
    assertThat(metadataTimeouts).hasValue(0);
    assertThat(termination).isNotDone();
  }

  @Test
  void aClusterThatNeverAnswersStopsTheConsumerWithOneLineAfterTheTopicCheckTimeout() {
    topicExistsWithTwoPartitions();
    metadataTimeouts.set(Integer.MAX_VALUE);
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));

    assertThatThrownBy(() -> termination.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessage(
            "Kafka did not answer a metadata request within "
                + SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT
                + " (check bootstrap.servers and that the cluster is up)");
    assertThat(runs).hasValue(0);
  }

  @Test
  void aMissingDeadLetterTopicStopsTheConsumerBeforeAnyRecordRuns() {
    topicWithoutDeadLetterTopic();
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, false));

    assertThatThrownBy(() -> termination.get(10, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(SigloConfigurationException.class)
        .hasMessageContaining("dead-letter topic(s) [orders-dlt] do not exist");
    assertThat(created).isEmpty();
    assertThat(runs).hasValue(0);
  }

  @Test
  void aMissingDeadLetterTopicIsCreatedWhenAskedAndTheConsumerRuns() {
    topicWithoutDeadLetterTopic();
    start(settings(SigloKafkaConsumer.DEFAULT_TOPIC_CHECK_TIMEOUT, true));
    assignAndSend(List.of(P0), 2);

    await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 2);
    assertThat(created).containsExactly("orders-dlt");
  }
}
