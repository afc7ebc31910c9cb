package dev.siglo.testkit;

import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class a {@link RedisServer}: this JVM's shared one ({@link SharedServers#redis()},
 * for tests that isolate themselves by key prefix and never stop or flush it), or one the class
 * owns, started before its tests and stopped after:
 *
 * <pre>{@code
 * @RegisterExtension static final RedisServerExtension REDIS = RedisServerExtension.startOrExternal();
 * }</pre>
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
  private final Supplier<RedisServer> factory;
  private final boolean owned;
  private RedisServer server;

  private RedisServerExtension(Supplier<RedisServer> factory, boolean owned) {
    this.factory = factory;
    this.owned = owned;
  }

  /**
   * @return an extension for this JVM's shared server (the external server of {@value
   *     RedisServer#ENV_URL}, or one started on first use), left running after the class
   */
  public static RedisServerExtension startOrExternal() {
    return new RedisServerExtension(SharedServers::redis, false);
  }

  /**
   * @param builder how to start a server this test class owns
   * @return the extension
   */
  public static RedisServerExtension owned(RedisServer.Builder builder) {
    return new RedisServerExtension(builder::start, true);
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
    if (owned && server != null) {
      server.close();
    }
  }
}
