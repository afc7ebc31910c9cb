package dev.siglo.bench;

import dev.siglo.testkit.RedisServer;
import redis.clients.jedis.Jedis;

/**
 * The Redis server's own CPU time over a run, from {@code INFO cpu} ({@code used_cpu_user} plus
 * {@code used_cpu_sys}, microsecond resolution, network I/O included), and the script calls, the
 * time spent in them and the commands it ran, from {@code INFO commandstats}: read when the
 * consumer starts and again when its last message is durable, so the store's {@code clear()} after
 * the run is not counted. The benchmark's consumer is the server's only client in that window.
 */
final class RedisServerCpu {
  private final RedisServer redis;
  private final double[] start;
  private volatile double[] end;

  private RedisServerCpu(RedisServer redis) {
    this.redis = redis;
    this.start = read(redis);
  }

  /**
   * Starts measuring now and stops when {@code ledger}'s last message is durable.
   *
   * @return the measurement
   */
  static RedisServerCpu over(RedisServer redis, Ledger ledger) {
    RedisServerCpu cpu = new RedisServerCpu(redis);
    ledger.onDurable(() -> cpu.end = read(redis));
    return cpu;
  }

  /**
   * @param messages the messages handled in the window
   * @return the server's CPU microseconds per message, or NaN when the window did not end durably
   */
  double microsPerMessage(long messages) {
    return end == null ? Double.NaN : (end[0] - start[0]) * 1e6 / Math.max(1, messages);
  }

  /**
   * @param messages the messages handled in the window
   * @return script calls ({@code EVALSHA}) per message, or NaN
   */
  double scriptCallsPerMessage(long messages) {
    return perMessage(1, messages);
  }

  /**
   * @param messages the messages handled in the window
   * @return microseconds the server spent running scripts ({@code EVALSHA}, {@code EVAL}, the
   *     commands they call included) per message, or NaN
   */
  double scriptMicrosPerMessage(long messages) {
    return perMessage(3, messages);
  }

  /**
   * @param messages the messages handled in the window
   * @return commands the server ran per message, those inside scripts included, or NaN
   */
  double commandsPerMessage(long messages) {
    return perMessage(2, messages);
  }

  private double perMessage(int counter, long messages) {
    return end == null ? Double.NaN : (end[counter] - start[counter]) / Math.max(1, messages);
  }

  /**
   * @return the server's CPU seconds so far (user and system), its script calls, every command it
   *     ran (those inside scripts included), and the microseconds spent in scripts
   */
  private static double[] read(RedisServer redis) {
    try (Jedis jedis = new Jedis(redis.host(), redis.port())) {
      double cpu = 0;
      for (String line : jedis.info("cpu").split("\r\n")) {
        if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
          cpu += Double.parseDouble(line.substring(line.indexOf(':') + 1));
        }
      }
      double scripts = 0;
      double commands = 0;
      double scriptMicros = 0;
      for (String line : jedis.info("commandstats").split("\r\n")) {
        int from = line.indexOf("calls=");
        if (line.startsWith("cmdstat_") && from > 0) {
          double calls = Double.parseDouble(line.substring(from + 6, line.indexOf(',', from)));
          commands += calls;
          if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
            scripts += calls;
            int usec = line.indexOf("usec=") + 5;
            scriptMicros += Double.parseDouble(line.substring(usec, line.indexOf(',', usec)));
          }
        }
      }
      return new double[] {cpu, scripts, commands, scriptMicros};
    }
  }

  @Override
  public String toString() {
    return "RedisServerCpu[" + redis + "]";
  }
}
