package dev.siglo.faults;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The order in which the lanes take the scenarios: longest first, so that the run does not end with
 * one lane working through a long scenario while the others idle. The lengths are the seconds each
 * scenario took at CI size on the 2-core CI machine; a scenario not listed counts as a minute.
 */
final class Schedule {
  static final int UNKNOWN_SECONDS = 60;

  private static final Map<String, Integer> CI_SECONDS =
      Map.ofEntries(
          Map.entry("share-kills/tx", 100),
          Map.entry("share-kills/outside", 100),
          Map.entry("long-handlers/tx", 45),
          Map.entry("long-handlers/outside", 45),
          Map.entry("rebalance-storm/tx", 40),
          Map.entry("rebalance-storm/outside", 40),
          Map.entry("crash-loop/tx", 35),
          Map.entry("crash-loop/outside", 35),
          Map.entry("redis-failover-acks/outside", 35),
          Map.entry("store-outage/outside", 32),
          Map.entry("store-outage/tx", 32),
          Map.entry("sqs-store-outage/outside", 32),
          Map.entry("sqs-store-outage/tx", 32),
          Map.entry("batch-crash-loop/tx", 30),
          Map.entry("sqs-slow/tx", 30),
          Map.entry("sqs-slow/outside", 30),
          Map.entry("kafka-kills/tx", 25),
          Map.entry("kafka-kills/outside", 25),
          Map.entry("redis-failover/outside", 25),
          Map.entry("sqs-kills/tx", 20),
          Map.entry("lease-expiry/tx", 20),
          Map.entry("lease-expiry/outside", 20),
          Map.entry("sqs-kills/outside", 18),
          Map.entry("broker-kill/tx", 16),
          Map.entry("broker-kill/outside", 16),
          Map.entry("poison-mix/tx", 15));

  private Schedule() {}

  /**
   * @param scenarios scenarios in any order
   * @return the same scenarios, longest first (equal lengths keep their order)
   */
  static List<ReliabilityMain.Named> longestFirst(List<ReliabilityMain.Named> scenarios) {
    return scenarios.stream()
        .sorted(Comparator.comparingInt((ReliabilityMain.Named n) -> seconds(n.name())).reversed())
        .toList();
  }

  /**
   * @param name a scenario's name
   * @return how long it takes at CI size, in seconds
   */
  static int seconds(String name) {
    return CI_SECONDS.getOrDefault(name, UNKNOWN_SECONDS);
  }
}
