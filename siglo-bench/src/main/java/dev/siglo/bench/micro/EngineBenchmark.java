package dev.siglo.bench.micro;

import dev.siglo.consumer.Message;
import dev.siglo.consumer.MessageHandler;
import dev.siglo.consumer.MessageSource;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.engine.Disposition;
import dev.siglo.consumer.engine.MessageProcessor;
import dev.siglo.consumer.engine.MessageProcessorConfig;
import dev.siglo.consumer.key.KeyExtractors;
import dev.siglo.consumer.store.InMemoryIdempotencyStore;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The engine's per-message overhead: {@link MessageProcessor#process} of a new key each time on the
 * in-memory store (decode, key, fingerprint, claim, handler, complete, disposition), next to the
 * baseline of the same message decoded and handed to the same handler without Siglo. The difference
 * is what Siglo adds per message, without a broker or a network store.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EngineBenchmark {
  private static final MessageSource SOURCE = new MessageSource("kafka", "orders", 0, 0);
  private final byte[] payload = new byte[100];
  private final MessageHandler<byte[]> handler = (value, context) -> value.length;
  private MessageProcessor processor;
  private long sequence;

  /** Builds the processor on a new in-memory store. */
  @Setup
  public void setUp() {
    Arrays.fill(payload, (byte) 'x');
    processor =
        MessageProcessor.of(
            MessageProcessorConfig.builder(PayloadDecoder.bytes(), handler)
                // bounded, so the benchmark measures the engine and not a million-entry heap
                .store(InMemoryIdempotencyStore.custom().maxEntries(10_000).build())
                .keyExtractor(KeyExtractors.recordKey())
                .build());
  }

  private Message next() {
    long n = sequence++;
    return Message.builder(Long.toString(n), SOURCE)
        .recordKey("order-" + n)
        .payload(payload)
        .build();
  }

  /**
   * @return the disposition of a message with a key never seen before
   */
  @Benchmark
  public Disposition sigloProcess() {
    return processor.process(next());
  }

  /**
   * @return the handler's result for the same message without Siglo
   * @throws Exception never: the handler does not fail
   */
  @Benchmark
  public Object baselineDecodeAndHandle() throws Exception {
    Message m = next();
    return handler.handle(PayloadDecoder.bytes().decode(m), null);
  }
}
