package dev.siglo.testkit;

/**
 * The main of a separate-JVM test broker ({@link KafkaBrokerProcess}): runs {@code kafka.Kafka}
 * with the given properties file and halts the JVM when its standard input closes, so a broker
 * never outlives the test JVM that started it.
 */
public final class KafkaBrokerMain {
  private KafkaBrokerMain() {}

  /**
   * @param args the server properties file
   */
  public static void main(String[] args) {
    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // keep reading until the parent closes the pipe
                }
              } catch (java.io.IOException ignored) {
                // the parent is gone
              }
              Jvms.halt();
            },
            "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    kafka.Kafka.main(args);
  }
}
