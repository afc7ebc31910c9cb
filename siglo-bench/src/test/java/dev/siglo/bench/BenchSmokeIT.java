package dev.siglo.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.siglo.consumer.store.ClaimRequest;
import dev.siglo.consumer.store.ClaimResult;
import dev.siglo.consumer.store.ClaimToken;
import dev.siglo.consumer.store.IdempotencyStore;
import dev.siglo.consumer.store.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole benchmark at its tiny size (so CI keeps it from rotting): every scenario runs, its
 * correctness checks pass, and the Markdown table is written. And the checks bite: a store that
 * forgets its claims makes the duplicate storm fail the run.
 */
class BenchSmokeIT {
  @Test
  void theTinyBenchmarkRunsEveryScenarioAndWritesTheTable(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("BENCHMARKS.md");

    Report report = BenchMain.run(BenchOptions.parse("--size=tiny", "--out=" + out));

    String md = Files.readString(out);
    assertThat(md)
        .contains("siglo-bench")
        .contains("--size=tiny")
        .contains("| " + KafkaThroughput.SCENARIO + " | plain KafkaConsumer loop")
        .contains("| " + SlowHandlers.SCENARIO + " |")
        .contains("| " + SqsThroughput.SCENARIO + " |")
        .contains("| " + ShareThroughput.SCENARIO + " | plain KafkaShareConsumer loop")
        .contains("| " + DuplicateStorm.SCENARIO + " |")
        .contains("| " + BatchWrites.SCENARIO + " | batch handler")
        .contains("| " + BatchWrites.SCENARIO + " | database calls per message")
        .contains("| " + MicroBenchmarks.SCENARIO + " | sigloProcess |")
        .contains("per-message overhead");
    assertThat(md.split("\n"))
        .filteredOn(l -> l.startsWith("- ") && l.contains("exactly once"))
        .hasSize(7);
    assertThat(report.text()).contains("check passed");
  }

  @Test
  void aStoreThatForgetsItsClaimsFailsTheDuplicateStorm() throws Exception {
    try (Servers servers = new Servers()) {
      DuplicateStorm storm =
          new DuplicateStorm(servers, Size.named("tiny"), new Report(), s -> new Amnesiac());
      assertThatThrownBy(storm::run)
          .isInstanceOf(BenchmarkFailure.class)
          .hasMessageContaining("executed more than once");
    }
  }

  /** Grants every claim and remembers nothing: each copy of a key runs its handler. */
  private static final class Amnesiac implements IdempotencyStore {
    @Override
    public ClaimResult claim(ClaimRequest request) {
      return new ClaimResult.Claimed(
          ClaimToken.random(), Instant.now().plus(request.lease()), false);
    }

    @Override
    public void complete(String key, ClaimToken token, Outcome outcome, Duration retention) {}

    @Override
    public void fail(String key, ClaimToken token) {}

    @Override
    public Instant renewLease(String key, ClaimToken token, Duration lease) {
      return Instant.now().plus(lease);
    }

    @Override
    public Optional<Outcome> getResult(String key) {
      return Optional.empty();
    }

    @Override
    public void clear() {}
  }
}
