package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link KafkaBroker} (or uses the external cluster of {@value KafkaBroker#ENV_BOOTSTRAP})
 * before a test class and stops it after:
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();
 * }</pre>
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback {
  private KafkaBroker broker;

  /** Creates the extension; the broker starts before all tests of the class. */
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
    broker = KafkaBroker.startOrExternal();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (broker != null) {
      broker.close();
    }
  }
}
