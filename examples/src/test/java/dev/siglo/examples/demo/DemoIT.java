package dev.siglo.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs the demo in-process on the embedded brokers; asserts from the ledger and the events. */
class DemoIT {

  @ParameterizedTest
  @ValueSource(strings = {"kafka", "sqs"})
  void theDemoChargesEveryAcceptedOrderExactlyOnce(String broker) throws Exception {
    Demo.Result r =
        Demo.run(
            new Demo.Options(broker, 120, null, null, null, null),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    int orders = r.orders().size();
    int declined = r.declinedOrders().size();
    assertThat(r.exactlyOnce()).isTrue();
    assertThat(r.charges()).isEqualTo(orders - declined);
    assertThat(r.report().processed.get()).isEqualTo(orders - declined);
    assertThat(r.report().declined.get()).isEqualTo(declined);
    assertThat(r.report().duplicates.get() + r.report().declinesReplayed.get())
        .isEqualTo(2 * orders);
    assertThat(r.report().deadLettered.get()).isEqualTo(2);
    assertThat(r.report().retries.get()).as("each flaky card timed out once").isPositive();
  }
}
