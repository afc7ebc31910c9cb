package dev.siglo.examples.payments;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuickstartTest {

  @Test
  void everyOrderIsChargedAndReceiptedExactlyOnceDespiteDuplicatesDeclinesAndTimeouts()
      throws Exception {
    QuickstartMain.Summary s = QuickstartMain.run(35, 4, 8);

    assertThat(s.delivered()).isEqualTo(140);
    assertThat(s.declinedOrders())
        .containsExactlyInAnyOrder("order-7", "order-14", "order-21", "order-28", "order-35");
    for (String order : s.orders()) {
      long expected = s.declinedOrders().contains(order) ? 0 : 1;
      assertThat(s.chargesPerOrder().getOrDefault(order, 0L))
          .as("charges of %s", order)
          .isEqualTo(expected);
      assertThat(s.receiptsPerOrder().getOrDefault(order, 0L))
          .as("receipts of %s", order)
          .isEqualTo(expected);
    }
    assertThat(s.exactlyOnce()).isTrue();
    assertThat(s.dispositions().get("PROCESSED") + s.dispositions().getOrDefault("DECLINED", 0))
        .as("one execution per order")
        .isEqualTo(35);
    assertThat(s.dispositions().getOrDefault("DECLINED", 0)).isEqualTo(5);
    assertThat(s.gatewayCalls())
        .as("each declined card is called once, each flaky card twice, others once")
        .isEqualTo(35 + 6);
    assertThat(s.retries()).isEqualTo(6);
  }

  @Test
  void theExactlyOnceCheckFailsWhenTheLedgerShowsADoubleCharge() throws Exception {
    QuickstartMain.Summary s = QuickstartMain.run(3, 1, 1);
    java.util.Map<String, Long> doubled = new java.util.HashMap<>(s.chargesPerOrder());
    doubled.put("order-1", 2L);
    QuickstartMain.Summary tampered =
        new QuickstartMain.Summary(
            s.delivered(),
            s.dispositions(),
            s.retries(),
            s.gatewayCalls(),
            doubled,
            s.receiptsPerOrder(),
            s.declinedOrders(),
            s.orders());
    assertThat(s.exactlyOnce()).isTrue();
    assertThat(tampered.exactlyOnce()).isFalse();
  }
}
