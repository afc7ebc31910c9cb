package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link PostgresServer} (or uses the external one of {@value PostgresServer#ENV_URL})
 * before a test class and stops it after:
 *
 * <pre>{@code
 * @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);
 * }</pre>
 */
public final class PostgresServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final boolean ownedOnly;
  private PostgresServer server;

  /**
   * @param ownedOnly always start an embedded server, even when {@value PostgresServer#ENV_URL} is
   *     set (for tests that stop and start it)
   */
  public PostgresServerExtension(boolean ownedOnly) {
    this.ownedOnly = ownedOnly;
  }

  /**
   * @return the running server
   */
  public PostgresServer server() {
    if (server == null) {
      throw new IllegalStateException("the PostgreSQL server starts before all tests of the class");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    server = ownedOnly ? PostgresServer.start() : PostgresServer.startOrExternal();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }
}
