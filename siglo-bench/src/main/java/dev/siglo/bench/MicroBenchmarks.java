package dev.siglo.bench;

import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the JMH micro-benchmarks of {@code dev.siglo.bench.micro} and reports them: time and
 * allocation per operation, and the engine's per-message overhead (Siglo's {@code process} minus
 * the baseline of decoding and calling the handler directly).
 */
final class MicroBenchmarks {
  static final String SCENARIO = "Engine (JMH)";
  private static final double OVERHEAD_TARGET_NANOS = 1_500;

  private final Size size;
  private final Report report;

  MicroBenchmarks(Size size, Report report) {
    this.size = size;
    this.report = report;
  }

  void run() throws RunnerException {
    TimeValue iteration = TimeValue.milliseconds(size.jmhIterationMillis());
    Options options =
        new OptionsBuilder()
            .include("dev\\.siglo\\.bench\\.micro\\..*")
            .forks(size.jmhForks())
            .warmupIterations(size.jmhIterations())
            .warmupTime(iteration)
            .measurementIterations(size.jmhIterations())
            .measurementTime(iteration)
            .threads(1)
            .addProfiler(GCProfiler.class)
            .jvmArgsAppend("-Xmx2g")
            .shouldFailOnError(true)
            .build();
    Collection<RunResult> results = new Runner(options).run();
    Map<String, RunResult> byName = new HashMap<>();
    for (RunResult r : results) {
      String full = r.getParams().getBenchmark();
      byName.put(full.substring(full.lastIndexOf('.') + 1), r);
    }
    for (String name :
        new String[] {
          "baselineDecodeAndHandle",
          "sigloProcess",
          "keyShort",
          "keyLongDigested",
          "classifyWrappedTimeout",
          "codecEncodeSuccess",
          "codecEncodeDecline",
          "codecDecodeSuccess"
        }) {
      RunResult r = byName.get(name);
      if (r == null) {
        throw new BenchmarkFailure("JMH did not report " + name);
      }
      report.row(
          new Report.Row(
              SCENARIO,
              name,
              Report.format(score(r), "ns/op") + ", " + Report.format(allocation(r), "B/op"),
              String.format(Locale.ROOT, "±%.0f%%", 100 * error(r) / score(r)),
              "",
              "",
              "",
              "",
              ""));
    }
    RunResult siglo = byName.get("sigloProcess");
    RunResult base = byName.get("baselineDecodeAndHandle");
    double overhead = score(siglo) - score(base);
    report.row(
        new Report.Row(
            SCENARIO,
            "per-message overhead (sigloProcess − baseline), in-memory store",
            Report.format(overhead / 1000, "µs")
                + ", "
                + Report.format(allocation(siglo) - allocation(base), "B/op"),
            "",
            "",
            "",
            "",
            "< 1.5 µs",
            overhead < OVERHEAD_TARGET_NANOS ? "met" : "missed"));
  }

  private static double score(RunResult r) {
    return r.getPrimaryResult().getScore();
  }

  private static double error(RunResult r) {
    double e = r.getPrimaryResult().getScoreError();
    return Double.isNaN(e) ? 0 : e;
  }

  private static double allocation(RunResult r) {
    for (String name : r.getSecondaryResults().keySet()) {
      if (name.endsWith("gc.alloc.rate.norm")) {
        return r.getSecondaryResults().get(name).getScore();
      }
    }
    return Double.NaN;
  }
}
