package io.tandem.cli;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * {@code tandem demo --dashboard}: one {@link DashboardServer} per database of the demo's services,
 * on 127.0.0.1, sharing one generated token; and for each service running in the demo's JVM a
 * {@link HealthServer} with its own meters ({@code /metrics}: consumer lag, deduplication hits,
 * relay and saga counters, as that service counted them; {@code /health}). Ports from {@code
 * firstPort} upwards, the dashboards' first, in the order of the databases, then the services'; or
 * free ones chosen by the system when it is 0.
 */
final class DemoDashboards implements AutoCloseable {
  private final Map<String, DashboardServer> servers = new LinkedHashMap<>();
  private final Map<String, HealthServer> services = new LinkedHashMap<>();
  private final String token;

  /**
   * @param databases each service's database, by its consumer name (its dead letters and gaps are
   *     shown)
   * @param serviceMeters the meters of each service running here, by the same names
   * @param running whether each service running here runs, by the same names
   */
  DemoDashboards(
      Map<String, DataSource> databases,
      Map<String, PrometheusMeterRegistry> serviceMeters,
      Supplier<Map<String, Boolean>> running,
      int firstPort,
      Duration sampleEvery)
      throws IOException {
    this.token = DashboardCommand.generatedToken();
    int port = firstPort;
    try {
      for (Map.Entry<String, DataSource> db : databases.entrySet()) {
        servers.put(
            db.getKey(),
            new DashboardServer(
                endpoint(port), token, db.getValue(), List.of(db.getKey()), sampleEvery));
        port = firstPort == 0 ? 0 : port + 1;
      }
      for (Map.Entry<String, PrometheusMeterRegistry> meters : serviceMeters.entrySet()) {
        String service = meters.getKey();
        services.put(
            service,
            new HealthServer(endpoint(port), meters.getValue(), () -> health(service, running)));
        port = firstPort == 0 ? 0 : port + 1;
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw new IOException(
          "cannot open the demo's dashboards on 127.0.0.1 from port "
              + firstPort
              + " (two ports per service): "
              + e.getMessage()
              + "; choose others with --dashboard-port",
          e);
    }
  }

  private static HttpEndpoint endpoint(int port) {
    return HttpEndpoint.of("127.0.0.1", port, false, null, Map.of());
  }

  private static HealthServer.Health health(
      String service, Supplier<Map<String, Boolean>> running) {
    boolean up = Boolean.TRUE.equals(running.get().get(service));
    return new HealthServer.Health(
        up, Map.of("service", service, "status", up ? "running" : "stopped"));
  }

  /** The token every action of every dashboard needs. */
  String token() {
    return token;
  }

  /** Each service's dashboard address, by service. */
  Map<String, String> urls() {
    Map<String, String> urls = new LinkedHashMap<>();
    servers.forEach((name, s) -> urls.put(name, "http://127.0.0.1:" + s.port() + "/"));
    return urls;
  }

  /** Each in-process service's {@code /metrics} address, by service. */
  Map<String, String> metricsUrls() {
    Map<String, String> urls = new LinkedHashMap<>();
    services.forEach((name, s) -> urls.put(name, "http://127.0.0.1:" + s.port() + "/metrics"));
    return urls;
  }

  @Override
  public void close() {
    List<DashboardServer> dashboards = new ArrayList<>(servers.values());
    List<HealthServer> endpoints = new ArrayList<>(services.values());
    servers.clear();
    services.clear();
    dashboards.forEach(DashboardServer::close);
    endpoints.forEach(HealthServer::close);
  }
}
