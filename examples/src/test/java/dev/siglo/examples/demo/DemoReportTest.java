package dev.siglo.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.examples.payments.Charge;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DemoReportTest {
  private final List<String> orders = List.of("o-1", "o-2", "o-3");
  private final Set<String> declined = Set.of("o-3");

  @Test
  void theCheckHoldsOnlyWhenEveryAcceptedOrderIsChargedOnceAndNoDeclinedOne() {
    Charge c1 = new Charge("ch1", "o-1", 1);
    Charge c2 = new Charge("ch2", "o-2", 1);
    assertThat(DemoReport.exactlyOnce(orders, declined, List.of(c1, c2))).isTrue();
    assertThat(
            DemoReport.exactlyOnce(orders, declined, List.of(c1, c2, new Charge("ch3", "o-2", 1))))
        .isFalse();
    assertThat(DemoReport.exactlyOnce(orders, declined, List.of(c1))).isFalse();
    assertThat(
            DemoReport.exactlyOnce(orders, declined, List.of(c1, c2, new Charge("ch4", "o-3", 1))))
        .isFalse();
    assertThat(
            DemoReport.exactlyOnce(orders, declined, List.of(c1, c2, new Charge("ch5", "o-9", 1))))
        .isFalse();
  }
}
