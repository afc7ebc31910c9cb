package dev.siglo.launcher;

import dev.siglo.consumer.IdempotencyConfig;
import dev.siglo.consumer.PayloadDecoder;
import dev.siglo.consumer.RetryConfig;
import dev.siglo.consumer.WorkerThreads;
import dev.siglo.consumer.classify.ErrorClassifier;
import dev.siglo.consumer.engine.Batching;
import dev.siglo.consumer.engine.ConsumerBuilder;
import dev.siglo.consumer.engine.HandlerShape;
import dev.siglo.consumer.key.IdempotencyKeyExtractor;
import dev.siglo.consumer.key.IdempotencyKeys;
import dev.siglo.consumer.store.IdempotencyStore;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * What both brokers' launches share: the settings read from the configuration before any connection
 * is made, and the dependencies started from them (metrics endpoint, store), each checked and
 * closed in reverse order on failure or stop.
 */
record LaunchSettings<T>(
    PayloadDecoder<T> decoder,
    HandlerShape<T> handler,
    Batching batching, // Batching.NONE unless the handler is a batch handler
    Duration asyncTimeout,
    ErrorClassifier classifier,
    RetryConfig retry,
    IdempotencyKeys keys,
    IdempotencyConfig idempotency,
    int concurrency,
    WorkerThreads workerThreads,
    IdempotencyKeyExtractor<Object> extractor,
    String tracing,
    StartupChecks checks) {

  /** The started dependencies, closed in reverse order. */
  static final class Started implements AutoCloseable {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    IdempotencyStore store;
    PrometheusEndpoint prometheus;

    <R extends AutoCloseable> R add(R resource) {
      resources.push(resource);
      return resource;
    }

    @Override
    public void close() {
      while (!resources.isEmpty()) {
        try {
          resources.pop().close();
        } catch (Exception e) {
          System.err.println("siglo: closing: " + StartupChecks.oneLine(e));
        }
      }
    }
  }

  /**
   * Starts the metrics endpoint and the store, checking each; on failure closes what started.
   *
   * @return the started dependencies
   */
  Started startDependencies(LauncherConfig config, StartupSummary summary) {
    Started started = new Started();
    try {
      started.prometheus = PrometheusEndpoint.startIfConfigured(config);
      if (started.prometheus != null) {
        started.add(started.prometheus);
      }
      LauncherStores.Built built = LauncherStores.build(config);
      started.store = started.add(built.store());
      checks.store(built.store());
      built.startUpkeep().run();
      summary
          .add("store", built.description())
          .add("handler", handler + ", payload " + config.get(LauncherKey.PAYLOAD) + shapeDetail())
          .add(
              "key",
              (config.get(LauncherKey.KEY) == null
                      ? "(broker default)"
                      : config.get(LauncherKey.KEY))
                  + ", namespace "
                  + orDash(config.get(LauncherKey.KEY_NAMESPACE))
                  + ", version "
                  + orDash(config.get(LauncherKey.KEY_VERSION)))
          .add(
              "concurrency",
              concurrency
                  + (handler.kind() == HandlerShape.Kind.BATCH ? " batches" : "")
                  + " on "
                  + workerThreads
                  + " threads")
          .add(
              "retries",
              retry.maxAttempts()
                  + " attempts per delivery from "
                  + config.get(LauncherKey.RETRY_BACKOFF)
                  + ", "
                  + retry.maxDeliveries()
                  + " deliveries, "
                  + retry.maxTakeovers()
                  + " takeovers")
          .add(
              "idempotency",
              "ttl "
                  + idempotency.ttl()
                  + ", lease "
                  + idempotency.lease()
                  + ", settle timeout "
                  + idempotency.settleTimeout())
          .add("classification", classification(config))
          .add(
              "tracing",
              tracing.equals("off")
                  ? "off"
                  : "GlobalOpenTelemetry, "
                      + (tracing.equals("link") ? "linked to" : "parented on")
                      + " the producer's traceparent")
          .add(
              "metrics",
              started.prometheus == null
                  ? "(no endpoint: set " + LauncherKey.METRICS_PORT.key() + ")"
                  : started.prometheus.url());
      return started;
    } catch (RuntimeException e) {
      started.close();
      throw e;
    }
  }

  /** The summary's word on the handler's own settings. */
  private String shapeDetail() {
    return switch (handler.kind()) {
      case MESSAGE -> "";
      case ASYNC -> ", stage timeout " + asyncTimeout;
      case BATCH -> ", batches of up to " + batching.size() + " (linger " + batching.linger() + ")";
    };
  }

  /** Sets what both runtimes' builders share. */
  <B extends ConsumerBuilder<T, B>> B apply(B builder, Started started) {
    handler.configure(builder, batching, asyncTimeout);
    builder
        .store(started.store)
        .classifier(classifier)
        .retry(retry)
        .keys(keys)
        .idempotency(idempotency)
        .workerThreads(workerThreads);
    if (started.prometheus != null) {
      builder.metrics(started.prometheus.registry());
    }
    if (extractor != null) {
      builder.keyExtractor(extractor);
    }
    if (!tracing.equals("off")) {
      builder.tracing(io.opentelemetry.api.GlobalOpenTelemetry.get(), tracing.equals("link"));
    }
    return builder;
  }

  /**
   * Prints the summary, starts the consumer and returns its handle, whose close stops the consumer
   * and then every dependency.
   */
  static SigloLauncher.Running launch(
      LauncherConfig config,
      StartupSummary summary,
      PrintStream out,
      Runnable start,
      CompletableFuture<Void> termination,
      Runnable stop,
      Started started) {
    summary.print(config.source(), out);
    start.run();
    return new SigloLauncher.Running() {
      @Override
      public CompletableFuture<Void> termination() {
        return termination;
      }

      @Override
      public void close() {
        stop.run();
        started.close();
      }
    };
  }

  private static String classification(LauncherConfig config) {
    var rules = config.classification();
    if (rules.isEmpty()) {
      return "(defaults: Siglo's permanent exceptions, everything else transient)";
    }
    return rules.stringPropertyNames().stream()
        .sorted()
        .map(k -> k.substring("siglo.classification.".length()) + "=" + rules.getProperty(k))
        .collect(Collectors.joining("; "));
  }

  private static String orDash(String s) {
    return s == null ? "-" : s;
  }
}
