package dev.siglo.testkit;

import org.elasticmq.rest.sqs.SQSRestServerBuilder;

/**
 * The main of an ElasticMQ in a JVM of its own ({@link SqsServer#startInOwnJvmOrExternal()}):
 * serves SQS on the loopback port given as its argument and halts when its standard input closes,
 * so it never outlives the JVM that started it.
 */
public final class SqsServerMain {
  private SqsServerMain() {}

  /**
   * @param args the port
   */
  public static void main(String[] args) {
    SQSRestServerBuilder.withInterface("127.0.0.1")
        .withPort(Integer.parseInt(args[0]))
        .start()
        .waitUntilStarted();
    try {
      while (System.in.read() >= 0) {
        // keep reading until the parent closes the pipe
      }
    } catch (java.io.IOException ignored) {
      // the parent is gone
    }
    Jvms.halt();
  }
}
