package dev.siglo.launcher;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The block the launcher prints once, after every start-up check passed and before the first
 * message: broker and destinations, store and where, key source, retries, classification,
 * dead-letter targets, metrics endpoint. Secrets are masked as {@code ****}; values are the ones in
 * effect (defaults included), so that what runs is what is read.
 */
final class StartupSummary {
  private final List<String[]> rows = new ArrayList<>();

  StartupSummary add(String label, String value) {
    rows.add(new String[] {label, value});
    return this;
  }

  /**
   * @param properties client properties
   * @return them as {@code name=value}, secrets masked
   */
  static String properties(Map<String, String> properties) {
    if (properties.isEmpty()) {
      return "(none)";
    }
    return properties.entrySet().stream()
        .map(
            e ->
                e.getKey()
                    + "="
                    + (LauncherConfig.secretKafkaProperty(e.getKey()) ? "****" : e.getValue()))
        .collect(Collectors.joining(", "));
  }

  void print(String source, PrintStream out) {
    out.print(render("siglo: starting the consumer of " + source));
    out.flush();
  }

  /**
   * @param title the first line, or null for none
   * @return the rows, labels aligned, one per line
   */
  String render(String title) {
    StringBuilder sb = new StringBuilder(title == null ? "" : title + "\n");
    int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    for (String[] row : rows) {
      sb.append("  ")
          .append(row[0])
          .append(" ".repeat(width - row[0].length() + 2))
          .append(row[1])
          .append('\n');
    }
    return sb.toString();
  }
}
