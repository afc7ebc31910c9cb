package dev.siglo.faults;

import dev.siglo.testkit.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A {@link FaultConsumerMain} in its own JVM (this JVM's class path), with the faults a test
 * injects: SIGKILL, SIGTERM, SIGSTOP and SIGCONT. Only ever signals the process it started.
 */
public final class ConsumerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;

  private ConsumerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts a consumer and waits until it runs.
   *
   * @param args the consumer's arguments
   * @param log where its output goes (appended)
   * @return the running process
   */
  public static ConsumerProcess start(Map<String, String> args, Path log) {
    // short-lived: start fast rather than peak (in the build's tests, the test JVM's flags say so)
    String classPath = ClassArchive.mainClassPath();
    List<String> archive = ClassArchive.options(classPath);
    List<String> options = new ArrayList<>(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
    options.addAll(archive);
    List<String> command =
        ChildJvm.commandOn(classPath, FaultConsumerMain.class, options.toArray(String[]::new));
    args.forEach((k, v) -> command.add(k + "=" + v));
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      long before = Files.exists(log) ? Files.size(log) : 0;
      Process p;
      try {
        p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
      } catch (IOException e) {
        ClassArchive.exited(archive);
        throw e;
      }
      p.onExit().thenRun(() -> ClassArchive.exited(archive));
      ConsumerProcess c = new ConsumerProcess(p, log);
      Awaitility.await("consumer process " + p.pid() + " ready (log " + log + ")")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> !p.isAlive() || c.printedReadySince(before));
      if (!p.isAlive()) {
        throw new IllegalStateException("the consumer process exited; see " + log);
      }
      return c;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a consumer process", e);
    }
  }

  private boolean printedReadySince(long offset) throws IOException {
    byte[] all = Files.readAllBytes(log);
    return new String(
            all,
            (int) Math.min(offset, all.length),
            (int) (all.length - Math.min(offset, all.length)),
            StandardCharsets.UTF_8)
        .contains(FaultConsumerMain.READY);
  }

  /**
   * @return the process id
   */
  public long pid() {
    return process.pid();
  }

  /**
   * @return whether it still runs
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: no shutdown hook, no commit, no completion. Waits until it is gone. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(30));
  }

  /** SIGTERM: the consumer drains, commits and exits. Waits up to 60 s, then kills it. */
  public void stop() {
    process.destroy();
    if (!awaitExit(Duration.ofSeconds(60))) {
      kill();
    }
  }

  /** SIGSTOP: the JVM freezes with everything it holds. */
  public void freeze() {
    signal("-STOP");
  }

  /** SIGCONT: the frozen JVM resumes where it stopped. */
  public void thaw() {
    signal("-CONT");
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling", e);
    }
  }

  private boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Kills it if it still runs (thawing it first, so a frozen process can die). */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        thaw();
      } catch (RuntimeException e) {
        // it may be gone already
      }
      kill();
    }
  }
}
