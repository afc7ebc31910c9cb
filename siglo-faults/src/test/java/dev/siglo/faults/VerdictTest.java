package dev.siglo.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class VerdictTest {
  private static Verdict verdict(
      String mode,
      int lost,
      int lostMessages,
      int duplicated,
      long unexpected,
      Map<String, Integer> deadLetters,
      boolean end,
      long whileDown) {
    return new Verdict(
        "s",
        mode,
        "faults",
        10,
        10,
        10 + duplicated,
        lost,
        lostMessages,
        duplicated,
        unexpected,
        deadLetters,
        Map.of("KEY_REUSE", 1),
        end,
        whileDown,
        1.0);
  }

  private static final Map<String, Integer> EXPECTED = Map.of("KEY_REUSE", 1);

  @Test
  void txPromisesNothingLostAndNothingTwice() {
    assertThat(verdict("tx", 0, 0, 0, 0, EXPECTED, true, -1).passed()).isTrue();
    assertThat(verdict("tx", 0, 0, 1, 0, EXPECTED, true, -1).passed()).isFalse();
    assertThat(verdict("tx", 1, 0, 0, 0, EXPECTED, true, -1).passed()).isFalse();
  }

  @Test
  void outsidePromisesNothingLostAndCountsDuplicatesWithoutFailing() {
    assertThat(verdict("outside", 0, 0, 3, 0, EXPECTED, true, -1).passed()).isTrue();
    assertThat(verdict("outside", 1, 0, 3, 0, EXPECTED, true, -1).passed()).isFalse();
    assertThat(verdict("outside", 0, 2, 0, 0, EXPECTED, true, -1).passed()).isFalse();
  }

  @Test
  void poisonEffectsWrongDeadLettersUnfinishedRunsAndEffectsWithoutAStoreFailEveryMode() {
    for (String mode : new String[] {"tx", "outside"}) {
      assertThat(verdict(mode, 0, 0, 0, 1, EXPECTED, true, -1).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, Map.of(), true, -1).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, false, -1).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, 1).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, 0).passed()).isTrue();
    }
  }

  @Test
  void anUnknownSizeIsRejectedWithItsName() {
    assertThatThrownBy(() -> FaultSize.named("huge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("huge");
    assertThat(FaultSize.named("soak").keys()).isGreaterThan(FaultSize.named("ci").keys());
  }
}
