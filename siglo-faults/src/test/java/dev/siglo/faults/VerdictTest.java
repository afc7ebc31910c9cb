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
      Verdict.Outage outage) {
    return verdict(
        mode, lost, lostMessages, duplicated, unexpected, deadLetters, end, false, outage);
  }

  private static Verdict verdict(
      String mode,
      int lost,
      int lostMessages,
      int duplicated,
      long unexpected,
      Map<String, Integer> deadLetters,
      boolean end,
      boolean noCrashes,
      Verdict.Outage outage) {
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
        noCrashes,
        outage,
        1.0);
  }

  private static final Map<String, Integer> EXPECTED = Map.of("KEY_REUSE", 1);

  @Test
  void txPromisesNothingLostAndNothingTwice() {
    assertThat(verdict("tx", 0, 0, 0, 0, EXPECTED, true, null).passed()).isTrue();
    assertThat(verdict("tx", 0, 0, 1, 0, EXPECTED, true, null).passed()).isFalse();
    assertThat(verdict("tx", 1, 0, 0, 0, EXPECTED, true, null).passed()).isFalse();
  }

  @Test
  void outsidePromisesNothingLostAndCountsDuplicatesWithoutFailing() {
    assertThat(verdict("outside", 0, 0, 3, 0, EXPECTED, true, null).passed()).isTrue();
    assertThat(verdict("outside", 1, 0, 3, 0, EXPECTED, true, null).passed()).isFalse();
    assertThat(verdict("outside", 0, 2, 0, 0, EXPECTED, true, null).passed()).isFalse();
  }

  @Test
  void withoutACrashOrAFreezeADuplicateFailsModeOutsideToo() {
    assertThat(verdict("outside", 0, 0, 1, 0, EXPECTED, true, true, null).passed()).isFalse();
    assertThat(verdict("outside", 0, 0, 0, 0, EXPECTED, true, true, null).passed()).isTrue();
  }

  @Test
  void poisonEffectsWrongDeadLettersUnfinishedRunsAndEffectsWithoutAStoreFailEveryMode() {
    for (String mode : new String[] {"tx", "outside"}) {
      assertThat(verdict(mode, 0, 0, 0, 1, EXPECTED, true, null).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, Map.of(), true, null).passed()).isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, false, null).passed()).isFalse();
    }
  }

  @Test
  void aStoreOutageFailsOnEffectsWhileDownNoPauseBusyProbingOrALateResume() {
    for (String mode : new String[] {"tx", "outside"}) {
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(0, 60, 40, 2)).passed()).isTrue();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(1, 60, 40, 2)).passed())
          .as("an effect while down")
          .isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(0, 0, 0, 0)).passed())
          .as("never paused")
          .isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(0, 60, 93, 2)).passed())
          .as("more than one call per paused second plus 4 per worker")
          .isFalse();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(0, 60, 92, 15)).passed())
          .as("at both limits")
          .isTrue();
      assertThat(verdict(mode, 0, 0, 0, 0, EXPECTED, true, outage(0, 60, 40, 16)).passed())
          .as("resumed too late")
          .isFalse();
    }
  }

  private static Verdict.Outage outage(
      long whileDown, double pausedSeconds, long calls, double resumedAfter) {
    return new Verdict.Outage(whileDown, pausedSeconds, calls, resumedAfter, 8);
  }

  @Test
  void anUnknownSizeIsRejectedWithItsName() {
    assertThatThrownBy(() -> FaultSize.named("huge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("huge");
    assertThat(FaultSize.named("soak").keys()).isGreaterThan(FaultSize.named("ci").keys());
  }
}
