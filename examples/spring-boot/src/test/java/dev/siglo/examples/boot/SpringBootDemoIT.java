package dev.siglo.examples.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The README's Spring Boot demo, as its one command runs it: the application from its
 * application.yml on the embedded broker charges every order exactly once by the gateway's ledger.
 */
class SpringBootDemoIT {
  @Test
  void everyOrderIsChargedExactlyOnceByTheGatewaysLedger() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok;
    try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      ok = SpringBootDemo.run(print);
    }
    String summary = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(summary).isTrue();
    assertThat(summary)
        .contains("messages received          182")
        .contains("dead-lettered              2");
  }
}
