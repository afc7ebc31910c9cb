package dev.siglo.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.siglo.testkit.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code siglo} command line in a JVM of its own, as an operator does, with the test's
 * class path, the given environment (the test's own AWS and Siglo variables removed) and standard
 * input; fails when it does not exit within a minute (a hang).
 */
final class SigloProcess {
  private SigloProcess() {}

  /** What the command printed (standard output and error) and its exit code. */
  record Result(int code, String output) {}

  static Result run(Path dir, Map<String, String> env, String stdin, String... args)
      throws Exception {
    List<String> command = ChildJvm.command(SigloCli.class);
    command.addAll(List.of(args));
    Path log = Files.createTempFile(dir, "siglo-", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_") || k.startsWith("SIGLO_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    try {
      assertThat(p.waitFor(120, TimeUnit.SECONDS))
          .as("siglo exits by itself: " + Files.readString(log))
          .isTrue();
    } finally {
      p.destroyForcibly();
    }
    return new Result(p.exitValue(), Files.readString(log));
  }
}
