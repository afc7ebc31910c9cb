package dev.siglo.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;

/**
 * One scenario run in progress: its consumer processes (started with the run's arguments, plus
 * overrides), and the progress of its effects, so faults can be timed by progress rather than by
 * the clock.
 */
final class Run implements AutoCloseable {
  final String id;
  final Map<String, String> args;
  final Effects effects;
  final Path logDir;
  final List<ConsumerProcess> consumers = new ArrayList<>();
  private final List<ConsumerProcess> all = new ArrayList<>();
  private int started;

  /** What the fault schedule adds to the scenario's description. */
  final StringBuilder notes = new StringBuilder();

  /**
   * Set by a scenario in which no consumer crashes or freezes: mode outside then has no window
   * between an effect and its record either, so a duplicate fails it as it fails mode tx.
   */
  boolean noCrashes;

  /** What the consumers did during the run's store outage, or {@code null} when it had none. */
  Verdict.Outage outage;

  Run(String id, Map<String, String> args, Effects effects, Path logDir) {
    this.id = id;
    this.args = args;
    this.effects = effects;
    this.logDir = logDir;
  }

  /** Starts one more consumer process (with overrides of the run's arguments). */
  ConsumerProcess startConsumer(Map<String, String> overrides) {
    Map<String, String> a = new HashMap<>(args);
    a.putAll(overrides);
    ConsumerProcess c =
        ConsumerProcess.start(a, logDir.resolve(id.replace('/', '_') + "-" + ++started + ".log"));
    consumers.add(c);
    all.add(c);
    return c;
  }

  ConsumerProcess startConsumer() {
    return startConsumer(Map.of());
  }

  /**
   * @return effects written so far (0 while the database is unreachable)
   */
  long effectsSoFar() {
    try {
      return effects.perKey(id).values().stream().mapToLong(Integer::longValue).sum();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** Waits until every one of the {@code keys} effect keys has its effect written. */
  void awaitEveryEffectKey(int keys, Duration atMost) {
    Awaitility.await(id + ": an effect for each of " + keys + " keys")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              try {
                return effects.perKey(id).size() >= keys;
              } catch (RuntimeException e) {
                return false;
              }
            });
  }

  /** Waits until at least {@code n} effects are written. */
  void awaitEffects(long n, Duration atMost) {
    Awaitility.await(id + ": " + n + " effects")
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> effectsSoFar() >= n);
  }

  /** SIGTERMs every consumer still running. */
  void stopAll() {
    for (ConsumerProcess c : consumers) {
      if (c.isAlive()) {
        c.stop();
      }
    }
  }

  @Override
  public void close() {
    all.forEach(ConsumerProcess::close);
  }
}
