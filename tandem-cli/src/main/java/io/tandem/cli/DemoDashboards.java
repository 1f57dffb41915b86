package io.tandem.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code tandem demo --dashboard}: one {@link DashboardServer} per database of the demo's services,
 * on 127.0.0.1, sharing one generated token. Ports from {@code firstPort} upwards in the order of
 * the databases, or free ones chosen by the system when it is 0.
 */
final class DemoDashboards implements AutoCloseable {
  private final Map<String, DashboardServer> servers = new LinkedHashMap<>();
  private final String token;

  /**
   * @param databases each service's database, by its consumer name (its dead letters and gaps are
   *     shown)
   */
  DemoDashboards(Map<String, DataSource> databases, int firstPort, java.time.Duration sampleEvery)
      throws IOException {
    this.token = DashboardCommand.generatedToken();
    int port = firstPort;
    try {
      for (Map.Entry<String, DataSource> db : databases.entrySet()) {
        HttpEndpoint endpoint = HttpEndpoint.of("127.0.0.1", port, false, null, Map.of());
        servers.put(
            db.getKey(),
            new DashboardServer(endpoint, token, db.getValue(), List.of(db.getKey()), sampleEvery));
        port = firstPort == 0 ? 0 : port + 1;
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw new IOException(
          "cannot open the demo's dashboards on 127.0.0.1 from port "
              + firstPort
              + " (one port per service): "
              + e.getMessage()
              + "; choose others with --dashboard-port",
          e);
    }
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

  @Override
  public void close() {
    List<DashboardServer> open = new ArrayList<>(servers.values());
    servers.clear();
    for (DashboardServer s : open) {
      s.close();
    }
  }
}
