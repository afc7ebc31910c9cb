package dev.siglo.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The benchmark: runs the selected scenarios on embedded servers (Kafka, ElasticMQ, Redis,
 * PostgreSQL, started here and stopped at the end), prints one table of Siglo figures next to
 * baselines measured in the same run, and writes it as Markdown when {@code --out} names a file.
 *
 * <p>Arguments: {@code --size=tiny|default|full} (default {@code default}), {@code
 * --only=kafka,slow,shapes,batch,share,sqs,storm,micro} (default all), {@code
 * --out=docs/BENCHMARKS.md}. Exit code 0 when every run was correct; 1 when a correctness check
 * failed (a record lost or handled twice, an offset or a queue left behind), and nothing is
 * written; 2 on bad arguments.
 */
public final class BenchMain {
  /** The command that runs the benchmark at its default size and writes docs/BENCHMARKS.md. */
  static final String COMMAND = "mvn -B -q -pl siglo-bench -am verify -DskipTests -Pbench";

  private BenchMain() {}

  /**
   * @param args see the class description
   */
  public static void main(String[] args) {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("siglo-bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    int code;
    try {
      run(options);
      code = 0;
    } catch (BenchmarkFailure e) {
      System.err.println("BENCHMARK FAILED: " + e.getMessage());
      code = 1;
    } catch (Exception e) {
      System.err.println("BENCHMARK FAILED: " + e);
      e.printStackTrace();
      code = 1;
    }
    System.exit(code); // embedded servers may leave non-daemon threads behind
  }

  /**
   * Runs the benchmark.
   *
   * @param options what to run and where to write it
   * @return the report
   * @throws Exception when a run fails; {@link BenchmarkFailure} when it gave a wrong answer
   */
  static Report run(BenchOptions options) throws Exception {
    String machine = machine();
    System.out.println("siglo-bench, size " + options.sizeName() + ", on " + machine);
    Report report = new Report();
    Size size = options.size();
    if (options.scenarios().contains("micro")) {
      new MicroBenchmarks(size, report).run();
    }
    try (Servers servers = new Servers()) {
      if (options.scenarios().contains("kafka")) {
        new KafkaThroughput(servers, size, report).run();
      }
      if (options.scenarios().contains("slow")) {
        new SlowHandlers(servers, size, report).run();
      }
      if (options.scenarios().contains("shapes")) {
        new HandlerShapes(servers, size, report).run();
      }
      if (options.scenarios().contains("batch")) {
        new BatchWrites(servers, size, report).run();
      }
      if (options.scenarios().contains("share")) {
        new ShareThroughput(servers, size, report).run();
      }
      if (options.scenarios().contains("sqs")) {
        new SqsThroughput(servers, size, report).run();
      }
      if (options.scenarios().contains("storm")) {
        new DuplicateStorm(servers, size, report).run();
      }
    }
    System.out.println();
    System.out.print(report.text());
    if (options.out() != null) {
      report.writeMarkdown(options.out(), commandLine(options), machine);
      System.out.println("written to " + options.out());
    }
    return report;
  }

  private static String commandLine(BenchOptions options) {
    boolean defaults =
        options.sizeName().equals("default") && options.scenarios().containsAll(BenchOptions.ALL);
    if (defaults) {
      return COMMAND;
    }
    return COMMAND
        + " -Dbench.args=\"--size="
        + options.sizeName()
        + " --only="
        + String.join(",", options.scenarios())
        + " --out=docs/BENCHMARKS.md\"";
  }

  static String machine() {
    Runtime rt = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d cores%s, %s %s (%s), max heap %d MiB, %s %s",
        rt.availableProcessors(),
        cpuModel(),
        System.getProperty("java.vm.name"),
        System.getProperty("java.vm.version"),
        String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()),
        rt.maxMemory() / (1024 * 1024),
        System.getProperty("os.name"),
        System.getProperty("os.arch"));
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .findFirst()
          .map(l -> " (" + l.substring(l.indexOf(':') + 1).trim() + ")")
          .orElse("");
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
