package dev.siglo.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The repetitions of one measured configuration: the median and spread (min–max) of the warm runs,
 * the cold (first) run's figure on its own, and the median CPU per message of the warm runs, in all
 * and by thread role.
 */
final class Sample {
  private final List<Double> values = new ArrayList<>();
  private final List<Double> cpus = new ArrayList<>();
  private final Map<String, List<Double>> cpuSplits = new LinkedHashMap<>();
  private double cold = Double.NaN;

  void add(double value) {
    values.add(value);
  }

  /**
   * Adds one run.
   *
   * @param run the run's ledger
   * @param first whether it is the configuration's first (cold) run, reported on its own
   */
  void add(Ledger run, boolean first) {
    if (first) {
      cold = run.perSecond();
    } else {
      values.add(run.perSecond());
      cpus.add(run.cpuMicrosPerMessage());
      run.cpuSplit()
          .forEach((role, us) -> cpuSplits.computeIfAbsent(role, r -> new ArrayList<>()).add(us));
    }
  }

  /**
   * @return the cold (first) run's rate, or NaN
   */
  double cold() {
    return cold;
  }

  /**
   * @return the median CPU microseconds per message of the warm runs, or NaN
   */
  double cpu() {
    return median(cpus);
  }

  /**
   * @return the median CPU microseconds per message of the warm runs by thread role, in {@link
   *     CpuSplit}'s order (empty when no run measured it)
   */
  Map<String, Double> cpuSplit() {
    Map<String, Double> out = new LinkedHashMap<>();
    cpuSplits.forEach((role, values) -> out.put(role, median(values)));
    return out;
  }

  int count() {
    return values.size();
  }

  double median() {
    return median(values);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  double min() {
    return sorted().get(0);
  }

  double max() {
    List<Double> sorted = sorted();
    return sorted.get(sorted.size() - 1);
  }

  /** The spread as a percentage of the median: (max − min) ÷ median. */
  String spread() {
    if (values.size() < 2) {
      return "n/a (1 run)";
    }
    return String.format(Locale.ROOT, "±%.0f%%", 50 * (max() - min()) / median());
  }

  private List<Double> sorted() {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted;
  }
}
