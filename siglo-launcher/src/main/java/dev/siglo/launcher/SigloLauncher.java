package dev.siglo.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.Batching;
import dev.siglo.consumer.engine.HandlerShape;
import dev.siglo.consumer.error.SigloConfigurationException;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.key.KeyExtractors;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a Siglo consumer from a configuration file: {@code siglo run consumer.yaml} ({@link
 * SigloCli}), or {@code java -cp ... dev.siglo.launcher.SigloLauncher consumer.properties}. Keys
 * are listed in {@link LauncherKey} (and {@code docs/CONFIGURATION.md}); environment variables
 * override the file. Invalid configuration, and a dependency that is missing, unreachable or
 * refuses the credentials (store, broker, topics, queues, AWS credentials, metrics port), stop it
 * before the first message with one line naming the file, the key and the problem (exit code 2).
 * Once every check passed, it prints a summary of what runs ({@link StartupSummary}). SIGTERM
 * closes it cleanly: stop receiving, drain, commit or delete, exit 0.
 */
public final class SigloLauncher {
  private SigloLauncher() {}

  /** A started consumer. */
  public interface Running extends AutoCloseable {
    /**
     * @return completes when the consumer stops (exceptionally on a fatal error)
     */
    CompletableFuture<Void> termination();

    /** Stops: drain, commit or delete, close. */
    @Override
    void close();
  }

  /**
   * Same as {@code siglo run <file>}.
   *
   * @param args the configuration file
   */
  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: SigloLauncher <consumer.properties|consumer.yaml>");
      System.exit(2);
    }
    System.exit(SigloCli.execute("run", args[0]));
  }

  /**
   * Runs the configuration until SIGTERM or a fatal error, for {@code siglo run}.
   *
   * @param file the configuration file
   * @param out where the start-up summary goes
   * @param err where a failure's one line goes
   * @return the exit code: 0 after a clean stop, 1 after a fatal error, 2 when it could not start
   */
  static int run(Path file, PrintStream out, PrintStream err) {
    Running running;
    try {
      running = start(LauncherConfig.load(file, System.getenv()), out);
    } catch (SigloConfigurationException e) {
      err.println("siglo: cannot start: " + e.getMessage());
      return 2;
    } catch (RuntimeException | LinkageError e) {
      err.println("siglo: cannot start: " + StartupChecks.oneLine(e));
      return 2;
    }
    // SIGTERM: drain, commit or delete, then exit 0 (a JVM stopped by a signal would exit 143)
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  Runtime.getRuntime()
                      .halt(running.termination().isCompletedExceptionally() ? 1 : 0);
                },
                "siglo-launcher-shutdown"));
    try {
      running.termination().join();
      return 0;
    } catch (RuntimeException e) {
      err.println("siglo: the consumer stopped: " + StartupChecks.oneLine(e.getCause()));
      return 1;
    }
  }

  /**
   * Builds the consumer the configuration describes, checks its dependencies, prints the start-up
   * summary to standard output and starts it.
   *
   * @param config the configuration
   * @return the running consumer
   * @throws SigloConfigurationException naming the file, the key and the problem
   */
  public static Running start(LauncherConfig config) {
    return start(config, System.out);
  }

  /**
   * @param config the configuration
   * @param out where the start-up summary goes
   * @return the running consumer
   * @throws SigloConfigurationException naming the file, the key and the problem
   */
  public static Running start(LauncherConfig config, PrintStream out) {
    PayloadDecoder<?> decoder = decoder(config);
    HandlerShape<?> handler;
    try {
      handler = HandlerShape.of(instantiate(config, LauncherKey.HANDLER));
    } catch (IllegalArgumentException e) {
      throw config.error(LauncherKey.HANDLER.key(), e.getMessage());
    }
    return start(config, decoder, handler, out);
  }

  /** A setting of another handler shape than the handler's is a mistake: named, not ignored. */
  private static void handlerSettingsMatch(LauncherConfig config, HandlerShape<?> handler) {
    for (LauncherKey key : List.of(LauncherKey.BATCH_SIZE, LauncherKey.BATCH_LINGER)) {
      if (config.isSet(key) && handler.kind() != HandlerShape.Kind.BATCH) {
        throw config.error(
            config.name(key), "applies to a BatchMessageHandler; the handler is " + handler);
      }
    }
    if (config.isSet(LauncherKey.ASYNC_TIMEOUT) && handler.kind() != HandlerShape.Kind.ASYNC) {
      throw config.error(
          config.name(LauncherKey.ASYNC_TIMEOUT),
          "applies to an AsyncMessageHandler; the handler is " + handler);
    }
  }

  /**
   * @return the payload decoder {@code siglo.payload} names
   */
  static PayloadDecoder<?> decoder(LauncherConfig config) {
    String payload = config.required(LauncherKey.PAYLOAD);
    if (payload.equals("utf8")) {
      return PayloadDecoder.utf8();
    }
    if (payload.equals("bytes")) {
      return PayloadDecoder.bytes();
    }
    if (payload.startsWith("json:")) {
      Class<?> type = load(config, LauncherKey.PAYLOAD, payload.substring(5));
      return PayloadDecoder.json(new ObjectMapper().findAndRegisterModules(), type);
    }
    throw config.error(
        LauncherKey.PAYLOAD.key(), "'" + payload + "' must be utf8, bytes or json:<class>");
  }

  @SuppressWarnings("unchecked")
  private static <T> Running start(
      LauncherConfig config, PayloadDecoder<T> decoder, HandlerShape<?> handler, PrintStream out) {
    String broker = config.oneOf(LauncherKey.BROKER, "kafka", "kafka-share", "sqs");
    LaunchSettings<T> settings = settings(config, decoder, (HandlerShape<T>) handler);
    return broker.equals("sqs")
        ? SqsLaunch.start(config, settings, out)
        : KafkaLaunch.start(config, settings, out, broker.equals("kafka-share"));
  }

  /** Everything but the broker, read and checked before any connection is made. */
  private static <T> LaunchSettings<T> settings(
      LauncherConfig config, PayloadDecoder<T> decoder, HandlerShape<T> handler) {
    handlerSettingsMatch(config, handler);
    ErrorClassifier classifier =
        ErrorClassifier.fromProperties(
            config.classification(),
            config.source(),
            Thread.currentThread().getContextClassLoader());
    RetryConfig retry =
        RetryConfig.custom()
            .maxAttempts(config.positiveInt(LauncherKey.RETRY_MAX_ATTEMPTS))
            .maxDeliveries(config.positiveInt(LauncherKey.RETRY_MAX_DELIVERIES))
            .maxTakeovers(config.positiveInt(LauncherKey.RETRY_MAX_TAKEOVERS))
            .backoff(
                config.duration(LauncherKey.RETRY_BACKOFF),
                config.duration(LauncherKey.RETRY_BACKOFF).multipliedBy(20))
            .build();
    IdempotencyKeys keys = keys(config);
    IdempotencyConfig idempotency;
    try {
      idempotency =
          IdempotencyConfig.custom()
              .ttl(config.positiveDuration(LauncherKey.IDEMPOTENCY_TTL))
              .lease(config.positiveDuration(LauncherKey.IDEMPOTENCY_LEASE))
              .settleTimeout(config.positiveDuration(LauncherKey.IDEMPOTENCY_SETTLE_TIMEOUT))
              .pollInterval(config.positiveDuration(LauncherKey.IDEMPOTENCY_POLL_INTERVAL))
              .build();
    } catch (IllegalArgumentException e) {
      throw config.error("siglo.idempotency", e.getMessage());
    }
    int concurrency = config.positiveInt(LauncherKey.CONCURRENCY);
    WorkerThreads workerThreads;
    try {
      workerThreads =
          config.oneOf(LauncherKey.WORKER_THREADS, "platform", "virtual").equals("virtual")
              ? WorkerThreads.virtualThreads()
              : WorkerThreads.platform();
    } catch (SigloConfigurationException e) {
      throw config.error(config.name(LauncherKey.WORKER_THREADS), e.getMessage());
    }
    Batching batching = Batching.NONE;
    if (handler.kind() == HandlerShape.Kind.BATCH) {
      try {
        batching =
            new Batching(
                config.positiveInt(LauncherKey.BATCH_SIZE),
                config.duration(LauncherKey.BATCH_LINGER));
      } catch (IllegalArgumentException e) {
        throw config.error(config.name(LauncherKey.BATCH_LINGER), e.getMessage());
      }
    }
    return new LaunchSettings<>(
        decoder,
        handler,
        batching,
        config.positiveDuration(LauncherKey.ASYNC_TIMEOUT),
        classifier,
        retry,
        keys,
        idempotency,
        concurrency,
        workerThreads,
        keyExtractor(config),
        config.oneOf(LauncherKey.TRACING, "off", "parent", "link"),
        new StartupChecks(config));
  }

  /**
   * @return the stored keys' namespace and version, as the consumer builds them
   */
  static IdempotencyKeys keys(LauncherConfig config) {
    return IdempotencyKeys.custom()
        .namespace(config.get(LauncherKey.KEY_NAMESPACE))
        .version(config.get(LauncherKey.KEY_VERSION))
        .build();
  }

  /**
   * @return the configured extractor, or null for the broker's default
   */
  static IdempotencyKeyExtractor<Object> keyExtractor(LauncherConfig config) {
    String spec = config.get(LauncherKey.KEY);
    if (spec == null) {
      return null;
    }
    try {
      return KeyExtractors.parse(spec);
    } catch (IllegalArgumentException e) {
      throw config.error(config.name(LauncherKey.KEY), e.getMessage());
    }
  }

  private static Object instantiate(LauncherConfig config, LauncherKey key) {
    Class<?> type = load(config, key, config.required(key));
    try {
      return type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw config.error(
          key.key(),
          type.getName() + " cannot be created with a public no-argument constructor: " + e);
    }
  }

  private static Class<?> load(LauncherConfig config, LauncherKey key, String name) {
    try {
      return Class.forName(name, true, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw config.error(key.key(), "class '" + name + "' not found");
    }
  }
}
