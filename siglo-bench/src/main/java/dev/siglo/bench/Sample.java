package dev.siglo.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** The repetitions of one measured configuration: median and spread (min–max). */
final class Sample {
  private final List<Double> values = new ArrayList<>();

  void add(double value) {
    values.add(value);
  }

  int count() {
    return values.size();
  }

  double median() {
    List<Double> sorted = sorted();
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
