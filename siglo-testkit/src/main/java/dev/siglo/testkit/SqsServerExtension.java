package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts an {@link SqsServer} (ElasticMQ, or the endpoint of {@value SqsServer#ENV_ENDPOINT})
 * before a test class and stops it after.
 */
public final class SqsServerExtension implements BeforeAllCallback, AfterAllCallback {
  private SqsServer server;

  /** Creates the extension; the server starts before all tests of the class. */
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
    server = SqsServer.startOrExternal();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }
}
