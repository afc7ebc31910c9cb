package dev.siglo.bench.micro;

import dev.siglo.consumer.classify.ErrorClass;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.JsonOutcomeCodec;
import dev.siglo.consumer.store.Outcome;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The parts of the per-message path: building a key (short, and long enough to be digested),
 * classifying a failure wrapped twice, and encoding and decoding outcomes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PartsBenchmark {
  private final IdempotencyKeys keys =
      IdempotencyKeys.custom().namespace("shop-eu").version("1").build();
  private final String shortKey = "order-1234567";
  private final String longKey = "order-".repeat(40);
  private final ErrorClassifier classifier = ErrorClassifier.defaults();
  private final Throwable wrapped =
      new ExecutionException(
          new UncheckedIOException(new SocketTimeoutException("read timed out")));
  private final JsonOutcomeCodec codec = JsonOutcomeCodec.of();
  private final Outcome success =
      new Outcome.Success("{\"chargeId\":\"ch_1234567890\",\"cents\":4200}");
  private final Outcome declined =
      new Outcome.Declined(
          "com.acme.CardDeclinedException", "insufficient funds", Map.of("code", "51"));
  private byte[] encodedSuccess;

  /** Encodes the outcome the decode benchmark reads. */
  @Setup
  public void setUp() {
    encodedSuccess = codec.encode(success);
  }

  /**
   * @return a key of 13 characters, scoped
   */
  @Benchmark
  public String keyShort() {
    return keys.key(shortKey);
  }

  /**
   * @return a key of 240 characters, scoped and digested
   */
  @Benchmark
  public String keyLongDigested() {
    return keys.key(longKey);
  }

  /**
   * @return the class of a timeout wrapped twice
   */
  @Benchmark
  public ErrorClass classifyWrappedTimeout() {
    return classifier.classify(wrapped);
  }

  /**
   * @return a success outcome as stored bytes
   */
  @Benchmark
  public byte[] codecEncodeSuccess() {
    return codec.encode(success);
  }

  /**
   * @return a decline as stored bytes
   */
  @Benchmark
  public byte[] codecEncodeDecline() {
    return codec.encode(declined);
  }

  /**
   * @return a stored success outcome, decoded
   */
  @Benchmark
  public Outcome codecDecodeSuccess() {
    return codec.decode(encodedSuccess);
  }
}
