package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SigloCliTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int siglo(String... args) {
    return SigloCli.execute(
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        args);
  }

  @Test
  void everyCommandHasItsHelp() {
    assertThat(siglo("--help")).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("run", "inspect", "forget", "redrive");
    for (String command : new String[] {"run", "inspect", "forget", "redrive"}) {
      out.reset();
      assertThat(siglo(command, "--help")).as(command).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: siglo " + command);
    }
    out.reset();
    siglo("redrive", "--help");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--dry-run", "--reason", "--since", "--until", "--key", "--limit")
        .contains("--max-redrives")
        .contains("(default: 3)");
  }

  @Test
  void aBadCommandLineExitsTwoWithTheProblem() {
    assertThat(siglo("redrive")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("Missing required option: '--config=<config>'");
    err.reset();
    assertThat(siglo("launch", "x.yaml")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unmatched arguments");
  }
}
