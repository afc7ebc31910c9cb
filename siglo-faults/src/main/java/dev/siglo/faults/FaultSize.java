package dev.siglo.faults;

import java.time.Duration;

/**
 * How large the suite runs: {@code ci} (a few minutes, in {@code mvn verify}) or {@code soak}
 * (20,000 messages per scenario, five kills).
 *
 * @param keys distinct keys per scenario
 * @param copies deliveries of each key
 * @param kills consumer kills in the kill scenarios
 * @param minutesPerScenario the longest a scenario may take to reach the end
 * @param outage how long the store is down in the outage scenarios: longer than the whole
 *     redelivery budget of the default retry settings (1 + 2 + 4 + 8 s of backoff) at either size
 * @param crashers records that halt the consumer's JVM in the crash-loop scenarios (each costs
 *     three crashes, each a lease of waiting)
 * @param lanes scenarios run at once, each lane on servers of its own (a {@link Lab}): most of a
 *     scenario's time is waiting out leases, outages and sessions, which lanes overlap; the soak
 *     runs one lane so its consumers have the machine to themselves
 */
record FaultSize(
    int keys,
    int copies,
    int kills,
    int minutesPerScenario,
    Duration outage,
    int crashers,
    int lanes) {
  static FaultSize named(String name) {
    return switch (name) {
      case "ci" -> new FaultSize(300, 3, 3, 4, Duration.ofSeconds(20), 1, 3);
      case "soak" -> new FaultSize(6_667, 3, 5, 20, Duration.ofSeconds(60), 3, 1);
      default -> throw new IllegalArgumentException("unknown size '" + name + "' (ci or soak)");
    };
  }

  /**
   * @param lanes scenarios at once
   * @return this size with that many lanes
   */
  FaultSize withLanes(int lanes) {
    if (lanes < 1) {
      throw new IllegalArgumentException("--lanes must be at least 1, not " + lanes);
    }
    return new FaultSize(keys, copies, kills, minutesPerScenario, outage, crashers, lanes);
  }
}
