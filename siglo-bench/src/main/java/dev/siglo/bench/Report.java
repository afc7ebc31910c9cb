package dev.siglo.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's table: one row per measured configuration, each next to its baseline from the
 * same run, plus the correctness checks that passed. Printed as text and written as Markdown.
 */
final class Report {
  /**
   * One row.
   *
   * @param scenario the scenario
   * @param configuration what ran
   * @param value the median, formatted
   * @param spread the spread over the repetitions
   * @param cold the cold (first) run's figure, formatted, or empty
   * @param cpu the benchmark process's CPU per message, formatted, or empty
   * @param ratio the ratio to the baseline, formatted, or "baseline"
   * @param target the product's target, or empty
   * @param verdict met, missed, or empty
   */
  record Row(
      String scenario,
      String configuration,
      String value,
      String spread,
      String cold,
      String cpu,
      String ratio,
      String target,
      String verdict) {}

  private final List<Row> rows = new ArrayList<>();
  private final List<String> checks = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  void baseline(String scenario, String configuration, Sample s, String unit) {
    rows.add(
        new Row(
            scenario,
            configuration,
            format(s.median(), unit),
            s.spread(),
            optional(s.cold(), unit),
            optional(s.cpu(), "µs"),
            "baseline",
            "",
            ""));
  }

  /**
   * A row compared with a baseline; {@code higherIsBetter} says which way the ratio reads.
   *
   * @param target the ratio the product aims for (NaN for none)
   */
  void compared(
      String scenario,
      String configuration,
      Sample s,
      String unit,
      Sample baseline,
      double target) {
    double ratio = s.median() / baseline.median();
    String targetText = Double.isNaN(target) ? "" : String.format(Locale.ROOT, "≥ %.2f×", target);
    String verdict = Double.isNaN(target) ? "" : ratio >= target ? "met" : "missed";
    rows.add(
        new Row(
            scenario,
            configuration,
            format(s.median(), unit),
            s.spread(),
            optional(s.cold(), unit),
            optional(s.cpu(), "µs"),
            String.format(Locale.ROOT, "%.2f×", ratio),
            targetText,
            verdict));
  }

  /**
   * A row comparing the CPU per message of a configuration with its baseline's; lower is better.
   *
   * @param maxRatio the ratio the product aims to stay under (NaN for none)
   */
  void cpuCompared(
      String scenario, String configuration, Sample s, Sample baseline, double maxRatio) {
    double ratio = s.cpu() / baseline.cpu();
    rows.add(
        new Row(
            scenario,
            configuration,
            format(s.cpu(), "µs") + " vs " + format(baseline.cpu(), "µs"),
            "",
            "",
            "",
            String.format(Locale.ROOT, "%.2f×", ratio),
            Double.isNaN(maxRatio) ? "" : String.format(Locale.ROOT, "≤ %.2f×", maxRatio),
            Double.isNaN(ratio) || Double.isNaN(maxRatio)
                ? ""
                : ratio <= maxRatio ? "met" : "missed"));
  }

  /**
   * A row splitting a configuration's CPU per message by thread role (median of the warm runs per
   * role), so the overhead shows where it is spent: the poll thread, the workers, the JVM's own
   * threads (garbage collection, JIT).
   */
  void cpuSplit(String scenario, String configuration, Sample s) {
    StringBuilder value = new StringBuilder();
    s.cpuSplit()
        .forEach(
            (role, us) -> {
              if (us >= 0.005) {
                value.append(value.length() == 0 ? "" : " · ").append(role).append(' ');
                value.append(format(us, "µs"));
              }
            });
    rows.add(
        new Row(
            scenario,
            "CPU per message by thread: " + configuration,
            value.toString(),
            "",
            "",
            optional(s.cpu(), "µs"),
            "",
            "",
            ""));
  }

  void row(Row row) {
    rows.add(row);
  }

  void check(String passed) {
    checks.add(passed);
  }

  void note(String note) {
    notes.add(note);
  }

  private static String optional(double value, String unit) {
    return Double.isNaN(value) ? "" : format(value, unit);
  }

  static String format(double value, String unit) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    String number =
        value >= 100
            ? String.format(Locale.ROOT, "%,.0f", value)
            : value >= 10
                ? String.format(Locale.ROOT, "%.1f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    return number + " " + unit;
  }

  String text() {
    String[] header = {
      "scenario",
      "configuration",
      "median",
      "spread",
      "cold",
      "CPU/msg",
      "vs baseline",
      "target",
      ""
    };
    List<String[]> lines = new ArrayList<>();
    lines.add(header);
    for (Row r : rows) {
      lines.add(
          new String[] {
            r.scenario(),
            r.configuration(),
            r.value(),
            r.spread(),
            r.cold(),
            r.cpu(),
            r.ratio(),
            r.target(),
            r.verdict()
          });
    }
    int[] widths = new int[header.length];
    for (String[] l : lines) {
      for (int i = 0; i < l.length; i++) {
        widths[i] = Math.max(widths[i], l[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] l : lines) {
      for (int i = 0; i < l.length; i++) {
        sb.append(String.format(Locale.ROOT, "%-" + (widths[i] + 2) + "s", l[i]));
      }
      sb.append(System.lineSeparator());
    }
    checks.forEach(c -> sb.append("check passed: ").append(c).append(System.lineSeparator()));
    notes.forEach(n -> sb.append("note: ").append(n).append(System.lineSeparator()));
    return sb.toString();
  }

  void writeMarkdown(Path file, String commandLine, String machine) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks\n\n");
    md.append("Generated by `siglo-bench` on ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(" — do not edit by hand; run it again instead:\n\n");
    md.append("```bash\n").append(commandLine).append("\n```\n\n");
    md.append("Machine: ").append(machine).append(".\n\n");
    md.append(
        "The Kafka broker and ElasticMQ run in JVMs of their own, Redis and PostgreSQL as their"
            + " server processes, so the benchmark JVM holds only the consumer under test. Each"
            + " run's window starts at the first message finished and ends when the commit (Kafka:"
            + " the group's committed offsets, read by an admin client every 5 ms; a share group: its"
            + " lag reported as 0 on every partition, read the same way) or the deletes"
            + " (SQS: the queue seen empty) covering the last message are durable. **median** is the"
            + " median of the warm runs, **cold** the configuration's first run in this JVM, reported"
            + " apart; the spread is half the range (max − min) of the warm runs as a share of the"
            + " median (for the JMH rows: JMH's 99.9% confidence interval). **CPU/msg** is the"
            + " benchmark process's CPU time over the window divided by the messages (median of the"
            + " warm runs). Each Siglo figure is compared with a baseline measured in the same run,"
            + " on the same servers. Targets are the product's goals; they are reported here, not"
            + " asserted.\n\n");
    md.append(
        "| scenario | configuration | median | spread | cold | CPU/msg | vs baseline | target | |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (Row r : rows) {
      md.append("| ")
          .append(
              String.join(
                  " | ",
                  r.scenario(),
                  r.configuration(),
                  r.value(),
                  r.spread(),
                  r.cold(),
                  r.cpu(),
                  r.ratio(),
                  r.target(),
                  r.verdict()))
          .append(" |\n");
    }
    md.append("\n## Correctness checks (a failed check fails the run)\n\n");
    checks.forEach(c -> md.append("- ").append(c).append('\n'));
    if (!notes.isEmpty()) {
      md.append("\n## Notes\n\n");
      notes.forEach(n -> md.append("- ").append(n).append('\n'));
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, md.toString(), StandardCharsets.UTF_8);
  }
}
