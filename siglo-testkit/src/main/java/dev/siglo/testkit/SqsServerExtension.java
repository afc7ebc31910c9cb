package dev.siglo.testkit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class this JVM's shared {@link SqsServer} ({@link SharedServers#sqs()}: ElasticMQ
 * started on first use and stopped when the JVM exits, or the endpoint of {@value
 * SqsServer#ENV_ENDPOINT}). Tests isolate themselves by queue name.
 */
public final class SqsServerExtension implements BeforeAllCallback {
  private SqsServer server;

  /** Creates the extension; the shared server is started, if not yet, before all tests. */
  public SqsServerExtension() {}

  /**
   * @return the running server
   */
  public SqsServer server() {
    if (server == null) {
      throw new IllegalStateException("the SQS server starts before all tests of the class");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    server = SharedServers.sqs();
  }
}
