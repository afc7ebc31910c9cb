package dev.siglo.bench;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The command line: {@code --size=tiny|default|full}, {@code
 * --only=kafka,slow,shapes,batch,share,sqs,storm,micro}, {@code --out=docs/BENCHMARKS.md} (no file
 * without it).
 *
 * @param sizeName the size's name
 * @param size the size
 * @param scenarios the scenarios to run
 * @param out where to write the Markdown table, or null
 */
record BenchOptions(String sizeName, Size size, Set<String> scenarios, Path out) {
  static final List<String> ALL =
      List.of("kafka", "slow", "shapes", "batch", "share", "sqs", "storm", "micro");

  static BenchOptions parse(String... args) {
    String size = "default";
    Set<String> only = new LinkedHashSet<>(ALL);
    Path out = null;
    for (String arg : args) {
      if (arg.startsWith("--size=")) {
        size = arg.substring("--size=".length());
      } else if (arg.startsWith("--only=")) {
        only = new LinkedHashSet<>(List.of(arg.substring("--only=".length()).split(",")));
        for (String s : only) {
          if (!ALL.contains(s)) {
            throw new IllegalArgumentException("unknown scenario '" + s + "' (use " + ALL + ")");
          }
        }
      } else if (arg.startsWith("--out=")) {
        out = Path.of(arg.substring("--out=".length()));
      } else {
        throw new IllegalArgumentException(
            "unknown argument '" + arg + "' (use --size=, --only=, --out=)");
      }
    }
    return new BenchOptions(size, Size.named(size), only, out);
  }
}
