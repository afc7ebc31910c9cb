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
          Map.entry("share-kills/outside", 75),
          Map.entry("share-kills/tx", 71),
          Map.entry("crash-loop/outside", 65),
          Map.entry("crash-loop/tx", 53),
          Map.entry("batch-crash-loop/tx", 53),
          Map.entry("rebalance-storm/tx", 52),
          Map.entry("sqs-store-outage/outside", 48),
          Map.entry("redis-failover-acks/outside", 46),
          Map.entry("store-outage/tx", 45),
          Map.entry("sqs-store-outage/tx", 43),
          Map.entry("store-outage/outside", 42),
          Map.entry("kafka-kills/outside", 42),
          Map.entry("rebalance-storm/outside", 39),
          Map.entry("kafka-kills/tx", 38),
          Map.entry("broker-kill/tx", 37),
          Map.entry("redis-failover/outside", 37),
          Map.entry("sqs-slow/outside", 35),
          Map.entry("broker-kill/outside", 34),
          Map.entry("sqs-slow/tx", 32),
          Map.entry("sqs-kills/outside", 31),
          Map.entry("sqs-kills/tx", 30),
          Map.entry("lease-expiry/outside", 28),
          Map.entry("lease-expiry/tx", 28),
          Map.entry("long-handlers/tx", 28),
          Map.entry("long-handlers/outside", 26),
          Map.entry("poison-mix/tx", 13));

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
