package dev.siglo.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LedgerTest {
  @Test
  void everySlotOnceIsExactlyOnce() throws Exception {
    Ledger ledger = new Ledger(3, 3);
    for (int i = 0; i < 3; i++) {
      ledger.executed(i);
      ledger.finished();
    }
    assertThat(ledger.await(Duration.ZERO)).isTrue();
    assertThatCode(() -> ledger.tally().requireExactlyOnce("run")).doesNotThrowAnyException();
    assertThat(ledger.tally()).isEqualTo(new Ledger.Tally(3, 3, 0, 0));
  }

  @Test
  void aSlotExecutedTwiceFailsTheRunAndNamesIt() {
    Ledger ledger = new Ledger(3, 3);
    ledger.executed(0);
    ledger.executed(1);
    ledger.executed(1);
    ledger.executed(2);
    assertThatThrownBy(() -> ledger.tally().requireExactlyOnce("storm-7"))
        .isInstanceOf(BenchmarkFailure.class)
        .hasMessageContaining("storm-7")
        .hasMessageContaining("4 executions")
        .hasMessageContaining("1 executed more than once");
  }

  @Test
  void aSlotNeverExecutedFailsBothChecks() {
    Ledger ledger = new Ledger(3, 3);
    ledger.executed(0);
    ledger.executed(2);
    ledger.executed(2);
    assertThatThrownBy(() -> ledger.tally().requireExactlyOnce("run"))
        .isInstanceOf(BenchmarkFailure.class)
        .hasMessageContaining("1 lost");
    assertThatThrownBy(() -> ledger.tally().requireNoneLost("plain"))
        .isInstanceOf(BenchmarkFailure.class)
        .hasMessageContaining("1 of 3 slots never executed");
  }

  @Test
  void theRunIsNotDoneBeforeItsTarget() throws Exception {
    Ledger ledger = new Ledger(2, 2);
    ledger.finished();
    assertThat(ledger.await(Duration.ofMillis(1))).isFalse();
    ledger.finished();
    assertThat(ledger.await(Duration.ZERO)).isTrue();
    assertThat(ledger.progress()).isEqualTo(2);
  }

  @Test
  void sampleMedianAndSpread() {
    Sample s = new Sample();
    s.add(10);
    s.add(30);
    s.add(20);
    assertThat(s.median()).isEqualTo(20);
    assertThat(s.spread()).isEqualTo("±50%");
    s.add(40);
    assertThat(s.median()).isEqualTo(25);
    Sample one = new Sample();
    one.add(5);
    assertThat(one.spread()).isEqualTo("n/a (1 run)");
  }

  @Test
  void badArgumentsAreRejectedWithTheirName() {
    assertThatThrownBy(() -> BenchOptions.parse("--size=huge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("huge");
    assertThatThrownBy(() -> BenchOptions.parse("--only=kafka,nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> BenchOptions.parse("--fast"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--fast");
    assertThat(BenchOptions.parse("--only=sqs").scenarios()).containsExactly("sqs");
  }
}
