package dev.siglo.bench;

import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.event.SigloEvent;
import dev.siglo.consumer.event.SigloEventListener;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.MissingKeyPolicy;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.kafka.Ordering;
import dev.siglo.kafka.SigloKafkaConsumer;
import dev.siglo.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One Siglo Kafka consumer run: builds the consumer, lets it run until the ledger reaches its
 * target (a message counts when the engine reports it processed or settled as a duplicate, i.e.
 * after the store recorded it), closes it, fails when the consumer died, and checks the run.
 */
final class SigloKafkaRun {
  private SigloKafkaRun() {}

  /**
   * Runs a Siglo consumer (KEY ordering) over a topic until the ledger reaches its target, then
   * empties and closes the store and checks the run (each slot exactly once, every partition
   * committed to its end).
   *
   * @param store the store, or null for idempotency off (no key, no claim); disposed here
   * @param extra another listener, or null
   * @return the run's ledger, its window ended by the commit covering the last record
   */
  static Ledger run(
      KafkaBroker kafka,
      String topic,
      String group,
      PayloadDecoder<byte[]> decoder,
      IdempotencyStore store,
      IdempotencyKeyExtractor<Object> keys,
      int concurrency,
      MessageHandler<byte[]> handler,
      Ledger ledger,
      SigloEventListener extra)
      throws InterruptedException {
    return run(
        kafka,
        topic,
        group,
        SigloKafkaConsumer.builder(decoder, handler),
        store,
        keys,
        concurrency,
        ledger,
        extra);
  }

  /**
   * Runs a consumer from a builder that has its handler (and, say, its worker threads), as {@link
   * #run(KafkaBroker, String, String, PayloadDecoder, IdempotencyStore, IdempotencyKeyExtractor,
   * int, MessageHandler, Ledger, SigloEventListener)} does.
   *
   * @return the run's ledger, its window ended by the commit covering the last record
   */
  static Ledger run(
      KafkaBroker kafka,
      String topic,
      String group,
      SigloKafkaConsumer.Builder<byte[]> b,
      IdempotencyStore store,
      IdempotencyKeyExtractor<Object> keys,
      int concurrency,
      Ledger ledger,
      SigloEventListener extra)
      throws InterruptedException {
    try {
      SigloEventListener progress =
          e -> {
            if (e instanceof SigloEvent.Processed || e instanceof SigloEvent.Duplicate) {
              ledger.finished();
            }
            if (extra != null) {
              extra.onEvent(e);
            }
          };
      b.bootstrapServers(kafka.bootstrapServers())
          .groupId(group)
          .topics(topic)
          .concurrency(concurrency)
          .ordering(Ordering.KEY)
          .listener(progress);
      if (store == null) {
        b.keyExtractor((message, value) -> Optional.empty())
            .missingKeyPolicy(MissingKeyPolicy.PROCESS_WITHOUT_IDEMPOTENCY);
      } else {
        b.store(store).keyExtractor(keys);
      }
      SigloKafkaConsumer<byte[]> consumer = b.build();
      CompletableFuture<Void> stopped = consumer.start();
      awaitTarget(kafka, topic, consumer, stopped, group, ledger);
    } finally {
      StoreKind.dispose(store);
    }
    return KafkaData.verified(kafka, topic, group, ledger);
  }

  /**
   * Waits until the ledger reaches its target and the running consumer has committed every
   * partition to its end (the window's end), closes the consumer, fails if it died.
   */
  private static void awaitTarget(
      KafkaBroker kafka,
      String topic,
      SigloKafkaConsumer<byte[]> consumer,
      CompletableFuture<Void> stopped,
      String group,
      Ledger ledger)
      throws InterruptedException {
    long deadline = System.nanoTime() + KafkaData.runTimeout((int) ledger.target()).toNanos();
    try {
      while (!ledger.await(Duration.ofMillis(200))) {
        if (stopped.isDone()) {
          throw new BenchmarkFailure(group + ": the consumer stopped: " + describe(stopped));
        }
        if (System.nanoTime() > deadline) {
          throw new BenchmarkFailure(
              group + ": finished " + ledger.progress() + " of " + ledger.target() + " in time");
        }
      }
      KafkaData.awaitCommittedToEnd(kafka, topic, group, ledger);
    } finally {
      consumer.close(Duration.ofSeconds(30));
    }
    if (stopped.isCompletedExceptionally()) {
      throw new BenchmarkFailure(group + ": the consumer failed: " + describe(stopped));
    }
  }

  private static String describe(CompletableFuture<Void> stopped) {
    try {
      stopped.join();
      return "normally";
    } catch (RuntimeException e) {
      return e.getCause() == null ? e.toString() : e.getCause().toString();
    }
  }
}
