package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PrometheusScrape;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The standalone relay's {@code /health} over a real relay on PostgreSQL and MariaDB: DOWN, with
 * the reason summarised, while its cycles keep failing (its outbox table is gone), UP again once a
 * cycle works.
 */
class RelayHealthEndpointTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void onPostgresHealthIsDownWhileTheRelaysCyclesFail() throws Exception {
    healthIsDownWhileTheRelaysCyclesFail(TestInfrastructure.postgres());
  }

  @Test
  @RequiresMariaDb
  void onMariaDbHealthIsDownWhileTheRelaysCyclesFail() throws Exception {
    healthIsDownWhileTheRelaysCyclesFail(TestInfrastructure.mariadb());
  }

  private void healthIsDownWhileTheRelaysCyclesFail(DatabaseServer server) throws Exception {
    try (IsolatedDatabase db = server.createDatabase("relay_health")) {
      Migrations.migrate(db.dataSource());
      Acknowledging transport = new Acknowledging();
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(db.dataSource())
              .transport(transport)
              .relayId("health-" + server.getClass().getSimpleName())
              .pollInterval(Duration.ofMillis(50))
              .heartbeatInterval(Duration.ofMillis(500))
              .publishTimeout(Duration.ofSeconds(1))
              .leaseDuration(LEASE)
              .unhealthyAfterFailedCycles(2)
              .meterRegistry(registry)
              .build();
      try (HealthServer http =
          new HealthServer(
              new HttpEndpoint("127.0.0.1", 0, false, Optional.empty()),
              registry,
              () -> RelayHealthReport.of(relay.status(), null, LEASE))) {
        relay.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> status(http) == 200);

        execute(db, "ALTER TABLE tandem_outbox RENAME TO tandem_outbox_away");
        await().atMost(Duration.ofSeconds(15)).until(() -> status(http) == 503);
        JsonNode down = json.readTree(get(http, "/health").body());
        assertThat(down.get("status").asText()).isEqualTo("DOWN");
        assertThat(down.get("failing").asBoolean()).isTrue();
        assertThat(down.get("owned_partitions").asInt()).isEqualTo(64);
        assertThat(down.get("last_error").asText())
            .startsWith("JdbcException: reading due outbox events failed: ")
            .containsPattern("\\(cause [A-Za-z]+Exception\\)$")
            .doesNotContain(db.jdbcUrl(), "\n");
        assertThat(get(http, "/metrics").body())
            .contains("tandem_relay_healthy{")
            .containsPattern("tandem_relay_cycles_failing\\{relay=\"[^\"]+\"} [2-9]");
        PrometheusScrape failing = PrometheusScrape.parse(get(http, "/metrics").body());
        String relayId = "health-" + server.getClass().getSimpleName();
        assertThat(failing.value("tandem_relay_cycles_failed_total", "relay", relayId))
            .isGreaterThanOrEqualTo(2);
        assertThat(failing.value("tandem_relay_healthy", "relay", relayId)).isZero();

        execute(db, "ALTER TABLE tandem_outbox_away RENAME TO tandem_outbox");
        Transactions.inTransaction(
            db.dataSource(),
            c -> {
              Outbox.create().append(c, TestEvents.event("Order", "back", 1));
              return null;
            });
        await().atMost(Duration.ofSeconds(15)).until(() -> status(http) == 200);
        await().atMost(Duration.ofSeconds(5)).until(() -> !transport.published.isEmpty());
      } finally {
        relay.close();
      }
    }
  }

  private static void execute(IsolatedDatabase db, String sql) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static HttpResponse<String> get(HealthServer http, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static int status(HealthServer http) throws Exception {
    return get(http, "/health").statusCode();
  }

  /** Acknowledges everything; refuses a call with two versions of one aggregate. */
  private static final class Acknowledging implements Transport {
    final List<Event> published = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return "acknowledging";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      List<String> repeated = TestEvents.repeatedAggregates(events);
      if (!repeated.isEmpty()) {
        throw new AssertionError("several versions of " + repeated + " in one call");
      }
      published.addAll(events);
      return events.stream().map(e -> PublishOutcome.acknowledged(e.eventId())).toList();
    }

    @Override
    public void close() {}
  }
}
