package dev.siglo.sqs.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The lanes of a FIFO queue's message groups: a group runs one message at a time, in the order
 * received; the others wait here until the running one finished. Thread-safe.
 */
final class FifoGroups {
  private final Map<String, ArrayDeque<Message>> groups = new HashMap<>();

  /**
   * @return whether {@code m} may run now (its group was idle); otherwise it waits behind the
   *     group's running message
   */
  synchronized boolean admit(String group, Message m) {
    ArrayDeque<Message> lane = groups.get(group);
    if (lane != null) {
      lane.add(m);
      return false;
    }
    groups.put(group, new ArrayDeque<>());
    return true;
  }

  /**
   * The group's running message finished: its next one, which runs now, or {@code null} (the group
   * is idle again).
   */
  synchronized Message next(String group) {
    ArrayDeque<Message> lane = groups.get(group);
    Message m = lane == null ? null : lane.poll();
    if (m == null) {
      groups.remove(group);
    }
    return m;
  }

  /**
   * The group's running message was not acknowledged (it holds its group): the group is idle again
   * and the messages waiting behind it are returned, to be released.
   */
  synchronized List<Message> drop(String group) {
    ArrayDeque<Message> lane = groups.remove(group);
    return lane == null ? List.of() : new ArrayList<>(lane);
  }
}
