package dev.siglo.launcher;

import com.sun.net.httpserver.HttpServer;
import dev.siglo.consumer.support.NamedThreads;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/** Serves the consumer's Micrometer metrics as Prometheus text at {@code /metrics}. */
final class PrometheusEndpoint implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final HttpServer server;

  private PrometheusEndpoint(PrometheusMeterRegistry registry, HttpServer server) {
    this.registry = registry;
    this.server = server;
  }

  /**
   * @return the endpoint when {@code siglo.metrics.prometheus-port} is set, else null
   */
  static PrometheusEndpoint startIfConfigured(LauncherConfig config) {
    if (config.get(LauncherKey.METRICS_PORT) == null) {
      return null;
    }
    int port = config.positiveInt(LauncherKey.METRICS_PORT);
    String bind = config.required(LauncherKey.METRICS_BIND);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 0);
      server.createContext(
          "/metrics",
          exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange
                .getResponseHeaders()
                .add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.setExecutor(
          Executors.newSingleThreadExecutor(NamedThreads.daemon("siglo-prometheus", false)));
      server.start();
      return new PrometheusEndpoint(registry, server);
    } catch (IOException e) {
      throw config.error(
          LauncherKey.METRICS_PORT.key(),
          "cannot listen on "
              + bind
              + ":"
              + port
              + " ("
              + (e instanceof java.net.BindException ? "the port is in use" : e.toString())
              + ")");
    }
  }

  /**
   * @return where the metrics are served
   */
  String url() {
    InetSocketAddress a = server.getAddress();
    return "http://" + a.getHostString() + ":" + a.getPort() + "/metrics";
  }

  PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
