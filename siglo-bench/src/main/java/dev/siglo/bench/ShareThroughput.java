package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.kafka.SigloKafkaShareConsumer;
import dev.siglo.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Kafka share groups: Siglo's {@link SigloKafkaShareConsumer} (in-memory store) against a plain
 * {@link KafkaShareConsumer} loop that handles each record on the poll thread and accepts it
 * (explicit acknowledgement, committed by the next poll and a final {@code commitSync}), on the
 * same broker in the same run, for a no-op handler and a 5 ms one. A run's window ends when the
 * broker reports the group's lag as 0 on every partition: every record's acknowledgement is then
 * durable in the share coordinator.
 */
final class ShareThroughput extends Scenario {
  static final String SCENARIO = "Kafka share groups";
  private static final int PARTITIONS = 3;
  private static final int NOOP_CONCURRENCY = 16;
  private static final int SLOW_CONCURRENCY = 64;
  private static final long SLOW_MILLIS = 5;

  private int runs;

  ShareThroughput(Servers servers, Size size, Report report) {
    super(servers, size, report);
  }

  @Override
  void run() throws Exception {
    KafkaBroker kafka = servers.kafka();
    int n = size.shareRecords();
    int slowBase = Math.max(100, n / 50);
    int slow = Math.max(200, n / 5);
    String topic = produce(kafka, "bench-share-" + n, n);
    String slowBaseTopic = produce(kafka, "bench-share-slow-base-" + slowBase, slowBase);
    String slowTopic = produce(kafka, "bench-share-slow-" + slow, slow);
    Sample plain = new Sample();
    Sample siglo = new Sample();
    Sample plainSlow = new Sample();
    Sample sigloSlow = new Sample();
    for (int rep = 0; rep <= size.repetitions(); rep++) {
      boolean cold = rep == 0;
      plain.add(plainLoop(kafka, topic, n, 0), cold);
      siglo.add(siglo(kafka, topic, n, 0, NOOP_CONCURRENCY), cold);
      plainSlow.add(plainLoop(kafka, slowBaseTopic, slowBase, SLOW_MILLIS), cold);
      sigloSlow.add(siglo(kafka, slowTopic, slow, SLOW_MILLIS, SLOW_CONCURRENCY), cold);
    }
    String label = String.format(Locale.ROOT, "%,d × 100 B, %d partitions", n, PARTITIONS);
    report.baseline(
        SCENARIO,
        "plain KafkaShareConsumer loop, explicit ACCEPT, no-op (" + label + ")",
        plain,
        "rec/s");
    report.compared(
        SCENARIO,
        "Siglo share consumer, in-memory store, concurrency " + NOOP_CONCURRENCY + ", no-op",
        siglo,
        "rec/s",
        plain,
        Double.NaN);
    report.cpuCompared(
        SCENARIO, "CPU per message: Siglo, in-memory store ÷ plain loop", siglo, plain, Double.NaN);
    report.baseline(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "plain KafkaShareConsumer loop, 5 ms handler, sequential (%,d records)",
            slowBase),
        plainSlow,
        "rec/s");
    report.compared(
        SCENARIO,
        String.format(
            Locale.ROOT,
            "Siglo share consumer, 5 ms handler, concurrency %d (%,d records)",
            SLOW_CONCURRENCY,
            slow),
        sigloSlow,
        "rec/s",
        plainSlow,
        Double.NaN);
    report.check(
        String.format(
            Locale.ROOT,
            "%s: every record handled exactly once and acknowledged to the end of every partition,"
                + " in %d runs",
            SCENARIO,
            runs));
  }

  private static String produce(KafkaBroker kafka, String topic, int n) {
    kafka.createTopics(PARTITIONS, topic, topic + "-dlt");
    KafkaData.produce(
        kafka.bootstrapServers(),
        n,
        i ->
            new ProducerRecord<byte[], byte[]>(
                topic,
                null,
                (byte[]) null,
                KafkaData.payload(i),
                List.of(
                    new RecordHeader(
                        "idempotency-key", ("h" + i).getBytes(StandardCharsets.UTF_8)))));
    return topic;
  }

  private Ledger plainLoop(KafkaBroker kafka, String topic, int n, long handlerMillis)
      throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = "bench-share-plain-" + ++runs;
    startAtEarliest(kafka, group);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put("share.acknowledgement.mode", "explicit");
    long deadline = System.nanoTime() + KafkaData.runTimeout(n).toNanos();
    CompletableFuture<Void> watch;
    try (KafkaShareConsumer<byte[], byte[]> consumer =
        new KafkaShareConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (ledger.progress() < n) {
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailure(group + ": finished " + ledger.progress() + " of " + n);
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (handlerMillis > 0) {
            Thread.sleep(handlerMillis);
          }
          ledger.executed(KafkaData.index(r.value()));
          ledger.finished();
          consumer.acknowledge(r, AcknowledgeType.ACCEPT);
        }
      }
      consumer.commitSync(Duration.ofSeconds(30));
      watch = CompletableFuture.runAsync(() -> awaitAcknowledgedToEnd(kafka, topic, group, ledger));
      watch.get(90, TimeUnit.SECONDS);
    }
    ledger.tally().requireExactlyOnce(group);
    return ledger;
  }

  private Ledger siglo(KafkaBroker kafka, String topic, int n, long handlerMillis, int concurrency)
      throws Exception {
    Ledger ledger = new Ledger(n, n);
    String group = "bench-share-siglo-" + ++runs;
    MessageHandler<byte[]> handler =
        (payload, ctx) -> {
          if (handlerMillis > 0) {
            Thread.sleep(handlerMillis);
          }
          ledger.executed(KafkaData.index(payload));
          return null;
        };
    try (SigloKafkaShareConsumer<byte[]> consumer =
        SigloKafkaShareConsumer.builder(PayloadDecoder.bytes(), handler)
            .bootstrapServers(kafka.bootstrapServers())
            .groupId(group)
            .topics(topic)
            .concurrency(concurrency)
            .store(StoreKind.MEMORY.open(servers, concurrency))
            .keyExtractor(KeyExtractors.header("idempotency-key"))
            .listener(
                e -> {
                  if (e instanceof SigloEvent.Processed || e instanceof SigloEvent.Duplicate) {
                    ledger.finished();
                  }
                })
            .build()) {
      CompletableFuture<Void> stopped = consumer.start();
      long deadline = System.nanoTime() + KafkaData.runTimeout(n).toNanos();
      while (!ledger.await(Duration.ofMillis(200))) {
        if (stopped.isDone() || System.nanoTime() > deadline) {
          throw new BenchmarkFailure(
              group
                  + ": finished "
                  + ledger.progress()
                  + " of "
                  + n
                  + " (stopped: "
                  + stopped.isDone()
                  + ")");
        }
      }
      awaitAcknowledgedToEnd(kafka, topic, group, ledger);
      if (consumer.failedAcknowledgements() != 0) {
        throw new BenchmarkFailure(group + ": acknowledgements failed");
      }
    }
    ledger.tally().requireExactlyOnce(group);
    return ledger;
  }

  /**
   * Whether every record of a partition below its end is acknowledged: the broker's lag is 0 (the
   * start offset itself may stay behind until the next fetch moves it).
   */
  static boolean acknowledged(SharePartitionOffsetInfo info, long end) {
    return info != null && info.lag().map(l -> l == 0).orElse(info.startOffset() >= end);
  }

  /** A new share group reads from the start of the topic, as Siglo's consumer sets it up. */
  private static void startAtEarliest(KafkaBroker kafka, String group) {
    try (Admin admin = kafka.admin()) {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.GROUP, group),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry("share.auto.offset.reset", "earliest"),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailure(group + ": interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new BenchmarkFailure(group + ": setting share.auto.offset.reset failed: " + e);
    }
  }

  /**
   * Watches the group's share-partition start offsets every 5 ms until each partition's reaches its
   * end, then ends the ledger's window.
   */
  private static void awaitAcknowledgedToEnd(
      KafkaBroker kafka, String topic, String group, Ledger ledger) {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int i = 0; i < PARTITIONS; i++) {
        latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new HashMap<>();
      admin
          .listOffsets(latest)
          .all()
          .get(30, TimeUnit.SECONDS)
          .forEach((tp, info) -> ends.put(tp, info.offset()));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (true) {
        Map<TopicPartition, SharePartitionOffsetInfo> at =
            admin
                .listShareGroupOffsets(
                    Map.of(group, new ListShareGroupOffsetsSpec().topicPartitions(ends.keySet())))
                .partitionsToOffsetInfo(group)
                .get(30, TimeUnit.SECONDS);
        boolean done = true;
        for (var e : ends.entrySet()) {
          SharePartitionOffsetInfo info = at.get(e.getKey());
          if (e.getValue() > 0 && !acknowledged(info, e.getValue())) {
            done = false;
            break;
          }
        }
        if (done) {
          ledger.durable();
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailure(
              group + ": not acknowledged to the end: " + at + " of " + ends);
        }
        Thread.sleep(5);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailure(group + ": interrupted while watching the acknowledgements");
    } catch (ExecutionException | TimeoutException e) {
      throw new BenchmarkFailure(group + ": reading the share-group offsets failed: " + e);
    }
  }
}
