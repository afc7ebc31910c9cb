package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link RedisSentinel} deployment (one primary, one replica, three sentinels) before a
 * test class and stops it after:
 *
 * <pre>{@code
 * @RegisterExtension static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension();
 * }</pre>
 */
public final class RedisSentinelExtension implements BeforeAllCallback, AfterAllCallback {
  private RedisSentinel deployment;

  /**
   * @return the running deployment
   */
  public RedisSentinel deployment() {
    if (deployment == null) {
      throw new IllegalStateException(
          "the Sentinel deployment starts before all tests of the class");
    }
    return deployment;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    deployment = RedisSentinel.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (deployment != null) {
      deployment.close();
    }
  }
}
