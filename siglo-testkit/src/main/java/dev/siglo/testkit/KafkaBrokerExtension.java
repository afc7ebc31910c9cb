package dev.siglo.testkit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class this JVM's shared {@link KafkaBroker} ({@link SharedServers#kafka()}: started
 * on first use, stopped when the JVM exits, or the external cluster of {@value
 * KafkaBroker#ENV_BOOTSTRAP}). Tests isolate themselves by topic and group and never stop it:
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
 * }</pre>
 */
public final class KafkaBrokerExtension implements BeforeAllCallback {
  private KafkaBroker broker;

  /** Creates the extension; the shared broker is started, if not yet, before all tests. */
  public KafkaBrokerExtension() {}

  /**
   * @return the running broker
   */
  public KafkaBroker broker() {
    if (broker == null) {
      throw new IllegalStateException("the Kafka broker starts before all tests of the class");
    }
    return broker;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    broker = SharedServers.kafka();
  }
}
