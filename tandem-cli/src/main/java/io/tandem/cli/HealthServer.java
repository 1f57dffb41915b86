package io.tandem.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.ErrorSummary;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Serves {@code GET /health} (200 when healthy, 503 otherwise, with a JSON body) and {@code GET
 * /metrics} (Prometheus text format) on the address of an {@link HttpEndpoint}, on {@value
 * #THREADS} threads so that a slow scrape does not hold up a health probe. With a token, every
 * request must carry {@code Authorization: Bearer <token>} (401 otherwise). Bodies are written by
 * Jackson; a failure answers 500 with its {@link ErrorSummary}, never the raw exception text.
 */
final class HealthServer implements AutoCloseable {
  static final int THREADS = 4;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;
  private final byte[] token;
  private final PrometheusMeterRegistry registry;
  private final Supplier<Health> health;

  HealthServer(HttpEndpoint endpoint, PrometheusMeterRegistry registry, Supplier<Health> health)
      throws IOException {
    this.token =
        endpoint.token().map(t -> ("Bearer " + t).getBytes(StandardCharsets.UTF_8)).orElse(null);
    this.registry = registry;
    this.health = health;
    AtomicInteger threads = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            THREADS,
            r -> {
              Thread t = new Thread(r, "tandem-http-" + threads.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    server = HttpServer.create(new InetSocketAddress(endpoint.host(), endpoint.port()), 64);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try {
      String method = ex.getRequestMethod();
      if (!authorized(ex)) {
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"tandem-relay\"");
        json(ex, 401, Map.of("error", "a bearer token is required (Authorization: Bearer ...)"));
        return;
      }
      String path = ex.getRequestURI().getPath();
      if (!path.equals("/health") && !path.equals("/metrics")) {
        json(ex, 404, Map.of("error", "not found: the endpoint serves /health and /metrics"));
        return;
      }
      if (!method.equals("GET") && !method.equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        json(ex, 405, Map.of("error", method + " is not allowed: use GET"));
        return;
      }
      try {
        if (path.equals("/health")) {
          Health h = health.get();
          json(ex, h.up() ? 200 : 503, h.body());
        } else {
          respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
        }
      } catch (RuntimeException e) {
        json(ex, 500, Map.of("error", ErrorSummary.of(e)));
      }
    } finally {
      ex.close();
    }
  }

  private boolean authorized(HttpExchange ex) {
    if (token == null) {
      return true;
    }
    String given = ex.getRequestHeaders().getFirst("Authorization");
    return given != null
        && MessageDigest.isEqual(token, given.strip().getBytes(StandardCharsets.UTF_8));
  }

  private static void json(HttpExchange ex, int status, Object body) throws IOException {
    String text;
    try {
      text = JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      status = 500;
      text = "{\"error\": \"the body could not be written as JSON\"}";
    }
    respond(ex, status, "application/json", text);
  }

  private static void respond(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** What {@code /health} answers: the status and a JSON-serialisable body. */
  record Health(boolean up, Map<String, Object> body) {}
}
