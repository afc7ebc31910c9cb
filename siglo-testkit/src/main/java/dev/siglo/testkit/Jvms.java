package dev.siglo.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a server of the tests in a JVM of its own, on this JVM's Java and class path, with its
 * output going where the caller says and its standard input a pipe (the servers' mains halt when it
 * closes, so none outlives the JVM that started it). The system property {@code
 * siglo.testkit.jvm.<MainClassSimpleName>} adds options to that server's JVM (space-separated), for
 * example a flight recording to profile the server under a benchmark.
 */
final class Jvms {
  private Jvms() {}

  /**
   * @param heap the {@code -Xmx} value, e.g. {@code 512m}
   * @param output where its standard output and error go
   * @param main the main class
   * @param args its arguments
   * @return the started process
   * @throws UncheckedIOException when it cannot be started
   */
  static Process start(String heap, ProcessBuilder.Redirect output, Class<?> main, String... args) {
    List<String> options = new ArrayList<>();
    options.add("-Xmx" + heap);
    String extra = System.getProperty("siglo.testkit.jvm." + main.getSimpleName(), "").strip();
    if (!extra.isEmpty()) {
      options.addAll(List.of(extra.split("\\s+")));
    }
    List<String> command = ChildJvm.command(main, options.toArray(String[]::new));
    command.addAll(List.of(args));
    try {
      return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + main.getSimpleName() + " in its own JVM", e);
    }
  }

  /**
   * Halts this server JVM (its parent closed the pipe), first writing out any flight recording
   * started with its options: a halt skips the shutdown hook that would.
   */
  static void halt() {
    for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
      Path destination = r.getDestination();
      if (destination != null) {
        try {
          r.dump(destination);
        } catch (IOException | RuntimeException e) {
          // profiling only: the halt goes on
        }
      }
    }
    Runtime.getRuntime().halt(0);
  }
}
