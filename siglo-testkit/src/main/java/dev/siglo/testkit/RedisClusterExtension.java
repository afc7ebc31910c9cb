package dev.siglo.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a {@link RedisCluster} (three primaries, three replicas) before a test class and stops it
 * after:
 *
 * <pre>{@code
 * @RegisterExtension static final RedisClusterExtension CLUSTER = new RedisClusterExtension();
 * }</pre>
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {
  private RedisCluster cluster;

  /**
   * @return the running cluster
   */
  public RedisCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("the Redis cluster starts before all tests of the class");
    }
    return cluster;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = RedisCluster.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
    }
  }
}
