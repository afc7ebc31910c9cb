package dev.siglo.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Races several JVM processes (not threads) to claim the same keys on one store: each child ({@link
 * ClaimRaceProcess}) opens its own store through a {@link StoreFactory}, all start claiming on the
 * same "go", and each reports the keys it won. The caller checks that every key was won exactly
 * once.
 */
public final class MultiProcessClaimRace {
  private MultiProcessClaimRace() {}

  /**
   * Fails unless the race gave every key to exactly one process and every process won some.
   *
   * @param won per process, the keys it claimed ({@link #run})
   * @param keys how many keys raced
   */
  public static void assertOneClaimPerKey(List<List<String>> won, int keys) {
    java.util.Set<String> all = new java.util.HashSet<>();
    int total = 0;
    for (List<String> perProcess : won) {
      all.addAll(perProcess);
      total += perProcess.size();
    }
    org.assertj.core.api.Assertions.assertThat(total)
        .as("claims counted by the processes")
        .isEqualTo(keys);
    org.assertj.core.api.Assertions.assertThat(all).as("distinct keys claimed").hasSize(keys);
    org.assertj.core.api.Assertions.assertThat(won)
        .as("every process won some keys")
        .allSatisfy(p -> org.assertj.core.api.Assertions.assertThat(p).isNotEmpty());
  }

  /**
   * Runs the race.
   *
   * @param factory the factory class the children open their store with
   * @param connection the connection string handed to the factory
   * @param processes how many child JVMs
   * @param keys how many keys
   * @return per process, the keys it claimed
   * @throws Exception when a child fails or does not finish within 3 minutes
   */
  public static List<List<String>> run(
      Class<? extends StoreFactory> factory, String connection, int processes, int keys)
      throws Exception {
    Path dir = Files.createTempDirectory("siglo-race");
    String namespace = "race" + System.nanoTime();
    List<Process> children = new ArrayList<>();
    List<BufferedReader> outputs = new ArrayList<>();
    try {
      for (int p = 0; p < processes; p++) {
        List<String> command = ChildJvm.command(ClaimRaceProcess.class, "-Xmx256m");
        command.addAll(
            List.of(
                factory.getName(),
                connection,
                namespace,
                String.valueOf(keys),
                dir.resolve("claimed-" + p).toString(),
                String.valueOf(p)));
        Process child =
            new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(child);
        outputs.add(
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
      }
      for (int p = 0; p < processes; p++) {
        expectLine(outputs.get(p), "ready", p);
      }
      for (Process child : children) {
        send(child, "go");
      }
      List<List<String>> claimed = new ArrayList<>();
      for (int p = 0; p < processes; p++) {
        String done = outputs.get(p).readLine();
        if (done == null || !done.startsWith("done ")) {
          throw new IllegalStateException("race process " + p + " failed: " + done);
        }
        claimed.add(Files.readAllLines(dir.resolve("claimed-" + p), StandardCharsets.UTF_8));
      }
      for (Process child : children) {
        child.getOutputStream().close();
        if (!child.waitFor(30, TimeUnit.SECONDS) || child.exitValue() != 0) {
          throw new IllegalStateException("race process did not exit cleanly");
        }
      }
      return claimed;
    } finally {
      for (Process child : children) {
        child.destroyForcibly();
      }
    }
  }

  private static void expectLine(BufferedReader in, String expected, int p) throws IOException {
    String line = in.readLine();
    if (!expected.equals(line)) {
      throw new IllegalStateException(
          "race process " + p + " said '" + line + "', expected '" + expected + "'");
    }
  }

  private static void send(Process child, String line) throws IOException {
    OutputStream out = child.getOutputStream();
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
