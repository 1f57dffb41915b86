package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dashboard's HTTP plumbing: query parameters, JSON and static-asset responses with their
 * security headers. Stateless.
 */
final class DashboardHttp {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8");

  private DashboardHttp() {}

  static Map<String, String> query(HttpExchange ex) {
    Map<String, String> q = new LinkedHashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          q.put(
              URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
              URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
      }
    }
    return q;
  }

  static void json(HttpExchange ex, int status, Object body) throws IOException {
    respond(ex, status, "application/json", JSON.writeValueAsBytes(body));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void respond(HttpExchange ex, int status, String type, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  static void asset(HttpExchange ex, String name) throws IOException {
    int dot = name.lastIndexOf('.');
    String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1));
    if (type == null || name.contains("..") || name.contains("/")) {
      json(ex, 404, Map.of("error", "not found: " + name));
      return;
    }
    try (InputStream in =
        DashboardServer.class.getResourceAsStream("/io/tandem/cli/dashboard/" + name)) {
      if (in == null) {
        json(ex, 404, Map.of("error", "not found: " + name));
        return;
      }
      ex.getResponseHeaders().set("Cache-Control", "no-store");
      ex.getResponseHeaders()
          .set(
              "Content-Security-Policy",
              "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:");
      respond(ex, 200, type, in.readAllBytes());
    }
  }
}
