package dev.siglo.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where the benchmark process's CPU time goes: a snapshot of the process's CPU time, of each live
 * Java thread's (from the JVM, to the nanosecond) and, on Linux, of the JVM's own threads (from
 * {@code /proc/self/task}, in clock ticks of 10 ms): the garbage collector's, the JIT compilers'.
 * The difference between two snapshots is split by thread role; what no thread accounts for is the
 * VM's other threads and threads that ended between the two snapshots (the consumer's threads live
 * through the whole window; a thread started in between counts in full).
 */
final class CpuSplit {
  /** The thread roles, in report order. */
  static final String MAIN = "main thread";

  static final String POLL = "poll";

  static final String WORKERS = "workers";
  static final String OTHER_SIGLO = "other Siglo threads";
  static final String CLIENTS = "client and benchmark threads";
  static final String GC = "GC";
  static final String JIT = "JIT";
  static final String JVM = "VM, ended threads";

  private static final String[] ROLES = {MAIN, POLL, WORKERS, OTHER_SIGLO, CLIENTS, GC, JIT, JVM};
  private static final Path TASKS = Path.of("/proc/self/task");
  private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

  private final long processNanos;
  private final Map<Long, Long> threadNanos;
  private final Map<Long, String> roles;
  private final Map<String, Long> jvmNanos;

  private CpuSplit(
      long processNanos,
      Map<Long, Long> threadNanos,
      Map<Long, String> roles,
      Map<String, Long> jvmNanos) {
    this.processNanos = processNanos;
    this.threadNanos = threadNanos;
    this.roles = roles;
    this.jvmNanos = jvmNanos;
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
    return new CpuSplit(processNanos(), nanos, roles, jvmThreadNanos());
  }

  /**
   * @return CPU time of the JVM's garbage collector and JIT compiler threads by role, read from
   *     {@code /proc/self/task/<tid>/stat} (user and system ticks); empty where that is missing
   */
  private static Map<String, Long> jvmThreadNanos() {
    Map<String, Long> out = new HashMap<>();
    if (!Files.isDirectory(TASKS)) {
      return out;
    }
    try (Stream<Path> tasks = Files.list(TASKS)) {
      tasks.forEach(
          task -> {
            try {
              String stat = Files.readString(task.resolve("stat"));
              String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
              String role = jvmRole(comm);
              if (role != null) {
                // after "(comm) ": state is field 0, utime field 11, stime field 12
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                out.merge(role, ticks * NANOS_PER_TICK, Long::sum);
              }
            } catch (IOException | RuntimeException ended) {
              // the thread ended while being read
            }
          });
    } catch (IOException e) {
      return Map.of();
    }
    return out;
  }

  /** The role of a JVM thread by its native name, or null for a Java thread. */
  static String jvmRole(String comm) {
    if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
      return GC;
    }
    return comm.contains("CompilerThre") || comm.startsWith("Sweeper") ? JIT : null;
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
    long accounted = javaNanos;
    for (Map.Entry<String, Long> e : later.jvmNanos.entrySet()) {
      long d = e.getValue() - jvmNanos.getOrDefault(e.getKey(), 0L);
      accounted += d;
      out.put(e.getKey(), micros(d, messages));
    }
    out.put(JVM, micros(processNanosUntil(later) - accounted, messages));
    return out;
  }

  private static double micros(long nanos, long messages) {
    return nanos / 1e3 / Math.max(1, messages);
  }
}
