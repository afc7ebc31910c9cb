package dev.siglo.examples.demo;

import java.util.HashMap;
import java.util.Map;

/**
 * Runs the payments demo and exits 0 only when the gateway's ledger shows every order charged
 * exactly once. Options: {@code --broker=kafka|sqs} (default kafka), {@code --orders=N} (default
 * 300), {@code --kafka-bootstrap=host:port}, {@code --sqs-endpoint=http://...}, {@code
 * --redis=redis://host:port}, {@code --postgres=jdbc:postgresql://...}.
 */
public final class DemoMain {
  private DemoMain() {}

  /**
   * @param args the options
   * @throws Exception when the demo cannot run
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> o = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new IllegalArgumentException("options look like --name=value, got '" + a + "'");
      }
      o.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    String broker = o.getOrDefault("broker", "kafka");
    if (!broker.equals("kafka") && !broker.equals("sqs")) {
      throw new IllegalArgumentException("--broker must be kafka or sqs, was " + broker);
    }
    Demo.Result r =
        Demo.run(
            new Demo.Options(
                broker,
                Integer.parseInt(o.getOrDefault("orders", "300")),
                o.get("kafka-bootstrap"),
                o.get("sqs-endpoint"),
                o.get("redis"),
                o.get("postgres")),
            System.out);
    System.exit(r.exactlyOnce() ? 0 : 1);
  }
}
