package dev.siglo.testkit;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link RedisServer} before a test class and stops it after:
 *
 * <pre>{@code
 * @RegisterExtension static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final Supplier<RedisServer> factory;
  private RedisServer server;

  private RedisServerExtension(Supplier<RedisServer> factory) {
    this.factory = factory;
  }

  /**
   * @return an extension for the external server of {@value RedisServer#ENV_URL}, or a new one
   */
  public static RedisServerExtension startOrExternal() {
    return new RedisServerExtension(RedisServer::startOrExternal);
  }

  /**
   * @param builder how to start a server this test class owns
   * @return the extension
   */
  public static RedisServerExtension owned(RedisServer.Builder builder) {
    return new RedisServerExtension(builder::start);
  }

  /**
   * @return the running server
   */
  public RedisServer server() {
    if (server == null) {
      throw new IllegalStateException("the Redis server starts before all tests of the class");
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    server = factory.get();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }
}
