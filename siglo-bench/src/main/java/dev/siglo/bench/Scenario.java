package dev.siglo.bench;

/**
 * An end-to-end scenario: runs its configurations on the shared servers at the given size and adds
 * its rows and checks to the report.
 */
abstract class Scenario {
  final Servers servers;
  final Size size;
  final Report report;

  Scenario(Servers servers, Size size, Report report) {
    this.servers = servers;
    this.size = size;
    this.report = report;
  }

  /** Runs the scenario; a wrong answer is a {@link BenchmarkFailure}. */
  abstract void run() throws Exception;
}
