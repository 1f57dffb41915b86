package io.tandem.cli;

import com.zaxxer.hikari.HikariDataSource;
import io.tandem.cdc.CdcRelay;
import io.tandem.jdbc.Dialect;
import io.tandem.xa.XaOperations;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import javax.sql.XADataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tandem dashboard}: the web console over one Tandem database. */
@Command(
    name = "dashboard",
    mixinStandardHelpOptions = true,
    header = "Web console: backlog, quarantine (replay, skip), consumers, sagas, trail, /metrics.",
    description = {
      "Serves a web console and /metrics over the Tandem tables of --jdbc-url until stopped.",
      "Listens on 127.0.0.1 unless --http-host and --http-allow-remote say otherwise. Every action"
          + " (replay, skip, retry a STUCK saga) needs the dashboard token: from --http-token-file"
          + " or "
          + DashboardCommand.TOKEN_VARIABLE
          + ", or generated and printed at start. Actions are recorded in"
          + " tandem_dashboard_action."
    })
final class DashboardCommand implements Callable<Integer> {
  static final String TOKEN_VARIABLE = "TANDEM_DASHBOARD_TOKEN";

  @Mixin DatabaseOptions database;

  @Option(names = "--port", defaultValue = "8080", description = "Port (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--http-host",
      defaultValue = "127.0.0.1",
      description = "Address to bind (default ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--http-allow-remote",
      description = "Allow an --http-host outside loopback (reads then need the token too).")
  boolean allowRemote;

  @Option(
      names = "--http-token-file",
      description =
          "File holding the dashboard token (else " + TOKEN_VARIABLE + ", else generated).")
  java.nio.file.Path tokenFile;

  @Option(
      names = "--consumer",
      description = "An inbox consumer whose dead letters and gaps to show (repeatable).")
  List<String> consumers = List.of();

  @Option(
      names = "--cdc-slot",
      description =
          "A CDC relay's replication slot to show (lag, activity, last publish), e.g. "
              + CdcRelay.DEFAULT_SLOT_NAME
              + "; PostgreSQL only.")
  String cdcSlot;

  @Option(
      names = "--participant",
      paramLabel = "NAME=JDBC_URL",
      description =
          "A two-phase-commit participant by its coordinator's name for it (repeatable): the"
              + " console shows its prepared (in-doubt) branches against the decision log in"
              + " --jdbc-url, as tandem xa status does.")
  LinkedHashMap<String, String> participants = new LinkedHashMap<>();

  @Option(
      names = "--sample-every",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "How often the charts and gauges read the database (default ${DEFAULT-VALUE}).")
  Duration sampleEvery;

  @Override
  public Integer call() throws Exception {
    HttpEndpoint endpoint =
        HttpEndpoint.of(host, port, allowRemote, tokenFile, System.getenv(), TOKEN_VARIABLE);
    String token = endpoint.token().orElseGet(DashboardCommand::generatedToken);
    Map<String, XADataSource> xaSources = XaParticipants.dataSources(participants);
    try (HikariDataSource ds = database.pool("tandem-dashboard", 4);
        XaOperations xa = xaSources.isEmpty() ? null : xaOperations(ds, xaSources);
        DashboardServer server =
            new DashboardServer(endpoint, token, ds, consumers, sampleEvery, panels(ds, xa))) {
      System.err.printf("tandem dashboard on http://%s:%d/%n", host, server.port());
      if (endpoint.token().isEmpty()) {
        System.err.println(
            "dashboard token (actions need it; set "
                + TOKEN_VARIABLE
                + " or --http-token-file to choose one): "
                + token);
      }
      if (endpoint.remote()) {
        System.err.println(
            "WARNING: the dashboard listens on "
                + host
                + ", outside loopback; reads need the token");
      }
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    }
    return 0;
  }

  private List<DashboardPanel> panels(HikariDataSource ds, XaOperations xa) {
    List<DashboardPanel> panels = new ArrayList<>();
    if (cdcSlot != null) {
      if (!Dialect.of(ds).name().equals("postgresql")) {
        throw new IllegalArgumentException(
            "--cdc-slot: CDC reads PostgreSQL's WAL; --jdbc-url is not a PostgreSQL database");
      }
      panels.add(new CdcPanel(ds, cdcSlot));
    }
    if (xa != null) {
      panels.add(new InDoubtPanel(xa));
    }
    return panels;
  }

  private static XaOperations xaOperations(HikariDataSource ds, Map<String, XADataSource> sources) {
    XaOperations.Builder b = XaOperations.builder().decisionLog(ds);
    sources.forEach(b::participant);
    try {
      return b.build();
    } catch (io.tandem.xa.XaConfigurationException e) {
      throw new IllegalArgumentException(
          "--participant needs the coordinator's decision log in --jdbc-url (tandem migrate"
              + " creates it): "
              + e.getMessage(),
          e);
    }
  }

  static String generatedToken() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
