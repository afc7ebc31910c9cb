package dev.siglo.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScheduleTest {
  @Test
  void theLanesTakeTheLongestScenariosFirstAndEveryScenarioOnce() {
    List<ReliabilityMain.Named> all = ReliabilityMain.scenarios();
    List<ReliabilityMain.Named> order = Schedule.longestFirst(all);

    assertThat(order).containsExactlyInAnyOrderElementsOf(all);
    assertThat(order.get(0).name()).startsWith("share-kills/");
    for (int i = 1; i < order.size(); i++) {
      assertThat(Schedule.seconds(order.get(i).name()))
          .as("%s after %s", order.get(i).name(), order.get(i - 1).name())
          .isLessThanOrEqualTo(Schedule.seconds(order.get(i - 1).name()));
    }
  }

  @Test
  void everyScenarioHasAKnownLengthSoNoneIsScheduledByGuess() {
    assertThat(ReliabilityMain.scenarios())
        .allSatisfy(
            n ->
                assertThat(Schedule.seconds(n.name()))
                    .as(n.name())
                    .isNotEqualTo(Schedule.UNKNOWN_SECONDS));
  }
}
