package dev.siglo.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.awaitility.Awaitility;

/**
 * A real Redis server for tests: a {@code redis-server} child process on a free loopback port, from
 * {@code PATH} when present, else the Redis 6.2 binary that {@code
 * com.github.codemonstur:embedded-redis} ships. Persistence is off unless asked for. The server is
 * stopped by {@link #close()}, and can be stopped and started again on the same port and data
 * directory to simulate an outage.
 *
 * <p>With the environment variable {@value #ENV_URL} set (for example {@code
 * redis://127.0.0.1:6379}), {@link #startOrExternal()} returns a handle to that server instead;
 * such a handle cannot be stopped ({@link #isExternal()}).
 */
public final class RedisServer implements AutoCloseable {
  /** The environment variable naming an external Redis for the tests. */
  public static final String ENV_URL = "SIGLO_TEST_REDIS_URL";

  private static final String EMBEDDED_BINARY = "redis-server-6.2.6-v5-linux-amd64";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

  private final Path binary;
  private final int port;
  private final Path dir;
  private final boolean persistent;
  private final String password;
  private final String host;
  private final boolean tls;
  private final boolean cluster;
  private final RedisServer primary;
  private Process process;

  private RedisServer(
      Path binary,
      String host,
      int port,
      Path dir,
      boolean persistent,
      String password,
      boolean tls,
      boolean cluster,
      RedisServer primary) {
    this.binary = binary;
    this.host = host;
    this.port = port;
    this.dir = dir;
    this.persistent = persistent;
    this.password = password;
    this.tls = tls;
    this.cluster = cluster;
    this.primary = primary;
  }

  /**
   * @return a builder for a server this test owns
   */
  public static Builder custom() {
    return new Builder();
  }

  /**
   * The external server named by {@value #ENV_URL}, or a new one without persistence.
   *
   * @return a running server
   */
  public static RedisServer startOrExternal() {
    String url = System.getenv(ENV_URL);
    if (url != null && !url.isBlank()) {
      URI uri = URI.create(url);
      return new RedisServer(
          null,
          uri.getHost(),
          uri.getPort() < 0 ? 6379 : uri.getPort(),
          null,
          false,
          null,
          false,
          false,
          null);
    }
    return custom().start();
  }

  /**
   * @return whether this handle points at an external server it does not own
   */
  public boolean isExternal() {
    return binary == null;
  }

  /**
   * @return the host, {@code 127.0.0.1} for servers started here
   */
  public String host() {
    return host;
  }

  /**
   * @return the port
   */
  public int port() {
    return port;
  }

  /** Password of {@link #trustStore()}. */
  public static final String TRUST_STORE_PASSWORD = "changeit";

  /**
   * The PKCS12 trust store (password {@value #TRUST_STORE_PASSWORD}) holding the self-signed
   * certificate of a TLS server, for clients.
   *
   * @return the trust store, empty when the server does not use TLS
   */
  public Optional<Path> trustStore() {
    return tls ? Optional.of(dir.resolve("trust.p12")) : Optional.empty();
  }

  /**
   * @return the binary in use, empty for an external server
   */
  public Optional<Path> binary() {
    return Optional.ofNullable(binary);
  }

  /**
   * Starts the server (again, after {@link #stop()}) on the same port and data directory.
   *
   * @return this server
   */
  public synchronized RedisServer start() {
    requireOwned();
    if (process != null && process.isAlive()) {
      return this;
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    if (tls) {
      cmd.addAll(
          List.of("--port", "0", "--tls-port", String.valueOf(port), "--tls-auth-clients", "no"));
      cmd.addAll(List.of("--tls-cert-file", dir.resolve("cert.pem").toString()));
      cmd.addAll(List.of("--tls-key-file", dir.resolve("key.pem").toString()));
      cmd.addAll(List.of("--tls-ca-cert-file", dir.resolve("cert.pem").toString()));
    } else {
      cmd.addAll(List.of("--port", String.valueOf(port)));
    }
    cmd.addAll(List.of("--bind", "127.0.0.1"));
    cmd.addAll(List.of("--dir", dir.toString(), "--protected-mode", "no"));
    if (persistent) {
      cmd.addAll(List.of("--appendonly", "yes", "--appendfsync", "always", "--save", ""));
    } else {
      cmd.addAll(List.of("--appendonly", "no", "--save", ""));
    }
    if (password != null) {
      cmd.addAll(List.of("--requirepass", password));
    }
    if (primary != null) {
      cmd.addAll(List.of("--replicaof", primary.host(), String.valueOf(primary.port())));
    }
    if (cluster) {
      // a node of a test cluster: a short node timeout, so a killed primary's replica takes over
      // within seconds
      cmd.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"));
      cmd.addAll(List.of("--cluster-node-timeout", "2000"));
    }
    try {
      process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("redis.log").toFile())
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary, e);
    }
    awaitReady();
    return this;
  }

  /** Stops the server (SIGTERM, then SIGKILL after 10 s); {@link #start()} brings it back. */
  public synchronized void stop() {
    requireOwned();
    if (process == null) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    process = null;
  }

  /**
   * @return whether this test's server process is running
   */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Kills the server with SIGKILL (a crash: no shutdown, no final write); {@link #start()} brings
   * it back.
   */
  public synchronized void kill() {
    requireOwned();
    if (process == null) {
      return;
    }
    try {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
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
          "an external Redis (" + ENV_URL + ") cannot be stopped or started");
    }
  }

  private void awaitReady() {
    Process started = process;
    Awaitility.await("redis-server on port " + port)
        .atMost(STARTUP_TIMEOUT)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> !started.isAlive() || answersPing());
    if (!started.isAlive()) {
      throw new IllegalStateException(
          "redis-server exited with " + started.exitValue() + "; see " + dir.resolve("redis.log"));
    }
  }

  private boolean answersPing() {
    try (Socket s = tls ? trustingSocket() : new Socket()) {
      s.connect(new InetSocketAddress(host, port), 200);
      s.setSoTimeout(1_000);
      OutputStream out = s.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[64];
      int n = in.read(buf);
      String answer = n > 0 ? new String(buf, 0, n, StandardCharsets.US_ASCII) : "";
      return answer.startsWith("+PONG") || answer.startsWith("-NOAUTH");
    } catch (IOException e) {
      return false;
    }
  }

  private Socket trustingSocket() throws IOException {
    try (InputStream in = Files.newInputStream(dir.resolve("trust.p12"))) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(in, TRUST_STORE_PASSWORD.toCharArray());
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context.getSocketFactory().createSocket();
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot build a TLS context for the readiness check", e);
    }
  }

  /** Makes a self-signed certificate for 127.0.0.1 with openssl and a PKCS12 trust store for it. */
  private static void makeCertificate(Path dir) {
    run(
        dir,
        "openssl",
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost");
    run(
        dir,
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-importcert",
        "-noprompt",
        "-alias",
        "redis",
        "-file",
        "cert.pem",
        "-keystore",
        "trust.p12",
        "-storetype",
        "PKCS12",
        "-storepass",
        TRUST_STORE_PASSWORD);
  }

  private static void run(Path dir, String... command) {
    try {
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("cert.log").toFile())
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(command[0] + " failed; see " + dir.resolve("cert.log"));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command[0], e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command[0], e);
    }
  }

  private static Path findBinary(boolean preferEmbedded) {
    if (!preferEmbedded) {
      String path = System.getenv("PATH");
      if (path != null) {
        for (String d : path.split(java.io.File.pathSeparator)) {
          Path candidate = Path.of(d, "redis-server");
          if (Files.isExecutable(candidate)) {
            return candidate;
          }
        }
      }
    }
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new IllegalStateException(
          "no redis-server on PATH and no embedded binary for "
              + os
              + "/"
              + arch
              + "; install Redis or set "
              + ENV_URL);
    }
    try (InputStream in = RedisServer.class.getResourceAsStream("/" + EMBEDDED_BINARY)) {
      if (in == null) {
        throw new IllegalStateException(
            EMBEDDED_BINARY + " not on the class path (embedded-redis)");
      }
      Path dir = Files.createTempDirectory("siglo-redis-bin");
      Path target = dir.resolve("redis-server");
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
      target.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract the embedded redis-server", e);
    }
  }

  @Override
  public String toString() {
    return "RedisServer[" + host + ":" + port + (isExternal() ? ", external" : ", " + binary) + "]";
  }

  /** Builds a {@link RedisServer} that this test owns. */
  public static final class Builder {
    private boolean persistent;
    private String password;
    private boolean embeddedBinary;
    private boolean tls;
    private boolean cluster;
    private RedisServer primary;

    private Builder() {}

    /**
     * @param primary the server this one replicates ({@code --replicaof}), or null for a primary
     * @return this builder
     */
    public Builder replicaOf(RedisServer primary) {
      this.primary = primary;
      return this;
    }

    /**
     * @param cluster run as a Redis Cluster node (see {@link RedisCluster}, which joins the nodes)
     * @return this builder
     */
    public Builder cluster(boolean cluster) {
      this.cluster = cluster;
      return this;
    }

    /**
     * @param tls serve TLS only, with a self-signed certificate for 127.0.0.1 made by {@code
     *     openssl} (see {@link RedisServer#trustStore()}); needs a redis-server built with TLS
     * @return this builder
     */
    public Builder tls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /**
     * @param persistent append-only file with fsync on every write, kept across restarts
     * @return this builder
     */
    public Builder persistent(boolean persistent) {
      this.persistent = persistent;
      return this;
    }

    /**
     * @param password the {@code requirepass} password (user {@code default})
     * @return this builder
     */
    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * @param embeddedBinary use the embedded Redis 6.2 binary even when {@code redis-server} is on
     *     {@code PATH}
     * @return this builder
     */
    public Builder embeddedBinary(boolean embeddedBinary) {
      this.embeddedBinary = embeddedBinary;
      return this;
    }

    /**
     * @return the started server
     */
    public RedisServer start() {
      try {
        Path dir = Files.createTempDirectory("siglo-redis");
        dir.toFile().deleteOnExit();
        if (tls) {
          makeCertificate(dir);
        }
        return new RedisServer(
                findBinary(embeddedBinary),
                "127.0.0.1",
                // a cluster node also listens on its port + 10,000 (its bus)
                cluster ? FreePorts.loopbackWithSecond(10_000) : FreePorts.loopback(),
                dir,
                persistent,
                password,
                tls,
                cluster,
                primary)
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a Redis data directory", e);
      }
    }
  }
}
