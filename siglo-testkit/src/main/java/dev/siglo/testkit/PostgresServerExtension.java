package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a {@link PostgresServer}: this JVM's shared one ({@link
 * SharedServers#postgres()}, the external one of {@value PostgresServer#ENV_URL} or an embedded one
 * started on first use, for tests that use tables of their own and never stop it), or with {@code
 * ownedOnly} an embedded one the class owns, started before its tests and stopped after:
 *
 * <pre>{@code
 * @RegisterExtension static final PostgresServerExtension PG = new PostgresServerExtension(false);
 * }</pre>
 */
public final class PostgresServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final boolean ownedOnly;
  private PostgresServer server;

  /**
   * @param ownedOnly start an embedded server this class owns, even when {@value
   *     PostgresServer#ENV_URL} is set (for tests that stop and start it); otherwise share
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
    server = ownedOnly ? PostgresServer.start() : SharedServers.postgres();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (ownedOnly && server != null) {
      server.close();
    }
  }
}
