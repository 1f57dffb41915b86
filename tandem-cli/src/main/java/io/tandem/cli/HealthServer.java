package io.tandem.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Serves {@code /health} (200 when healthy, 503 otherwise, with a JSON body) and {@code /metrics}
 * (Prometheus text format) on one address, loopback by default.
 */
final class HealthServer implements AutoCloseable {
  private final HttpServer server;

  HealthServer(String host, int port, PrometheusMeterRegistry registry, Supplier<Health> health)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-http");
              t.setDaemon(true);
              return t;
            }));
    server.createContext(
        "/health",
        ex -> {
          Health h = health.get();
          respond(ex, h.up() ? 200 : 503, "application/json", h.json());
        });
    server.createContext(
        "/metrics",
        ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** What {@code /health} answers. */
  record Health(boolean up, String json) {}
}
