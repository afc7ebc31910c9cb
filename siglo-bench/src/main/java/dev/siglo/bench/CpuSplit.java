package dev.siglo.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the benchmark process's CPU time goes: a snapshot of the process's CPU time and of each
 * live Java thread's, and the difference between two snapshots split by thread role. The process
 * time that no Java thread accounts for is the JVM's own threads (garbage collection, the JIT
 * compilers, the VM thread), and Java threads that ended between the two snapshots (the consumer's
 * threads live through the whole window; a thread started in between counts in full).
 */
final class CpuSplit {
  /** The thread roles, in report order. */
  static final String MAIN = "main thread";

  static final String POLL = "poll";

  static final String WORKERS = "workers";
  static final String OTHER_SIGLO = "other Siglo threads";
  static final String CLIENTS = "client and benchmark threads";
  static final String JVM = "GC, JIT, VM";

  private static final String[] ROLES = {MAIN, POLL, WORKERS, OTHER_SIGLO, CLIENTS, JVM};

  private final long processNanos;
  private final Map<Long, Long> threadNanos;
  private final Map<Long, String> roles;

  private CpuSplit(long processNanos, Map<Long, Long> threadNanos, Map<Long, String> roles) {
    this.processNanos = processNanos;
    this.threadNanos = threadNanos;
    this.roles = roles;
  }

  /**
   * @return the process's and every live Java thread's CPU time now
   */
  static CpuSplit take() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> nanos = new HashMap<>();
    Map<Long, String> roles = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      long cpu = threads.getThreadCpuTime(info.getThreadId());
      if (cpu >= 0) {
        nanos.put(info.getThreadId(), cpu);
        roles.put(info.getThreadId(), role(info.getThreadName()));
      }
    }
    return new CpuSplit(processNanos(), nanos, roles);
  }

  /**
   * @return the process's CPU time, in nanoseconds
   */
  static long processNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * The role of a thread by its name: the benchmark's main thread (it runs the plain Kafka loop,
   * and otherwise waits for the window's end), poll threads (Siglo's and the plain SQS loop's),
   * Siglo's workers and its other threads, and everything else.
   */
  static String role(String name) {
    if (name.equals("main")) {
      return MAIN;
    }
    if (name.contains("-poll")) {
      return POLL;
    }
    if (name.startsWith("siglo-")) {
      return name.contains("-worker") ? WORKERS : OTHER_SIGLO;
    }
    return CLIENTS;
  }

  /**
   * @return the process's CPU time from {@code this} to {@code later}, in nanoseconds
   */
  long processNanosUntil(CpuSplit later) {
    return later.processNanos - processNanos;
  }

  /**
   * @param later a later snapshot
   * @param messages the messages handled in between
   * @return microseconds of CPU per message by role, in report order
   */
  Map<String, Double> perMessageUntil(CpuSplit later, long messages) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String role : ROLES) {
      out.put(role, 0.0);
    }
    long javaNanos = 0;
    for (Map.Entry<Long, Long> e : later.threadNanos.entrySet()) {
      // a thread started in between spent all its time in the window
      long d = e.getValue() - threadNanos.getOrDefault(e.getKey(), 0L);
      javaNanos += d;
      out.merge(later.roles.get(e.getKey()), micros(d, messages), Double::sum);
    }
    out.put(JVM, micros(processNanosUntil(later) - javaNanos, messages));
    return out;
  }

  private static double micros(long nanos, long messages) {
    return nanos / 1e3 / Math.max(1, messages);
  }
}
