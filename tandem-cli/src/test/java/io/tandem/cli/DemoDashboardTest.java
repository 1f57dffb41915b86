package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.testkit.PrometheusScrape;
import io.tandem.testkit.TestInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code tandem demo --dashboard}: after the run the demo's services stay up with a dashboard on
 * each database, whose figures are the run's, until stopped.
 */
class DemoDashboardTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  @Tag("slow") // a whole demo run: about 40 s on 2 cores
  void theDashboardsServeTheDemosDatabasesUntilStopped() throws Exception {
    DemoCommand demo = new DemoCommand();
    new CommandLine(demo)
        .parseArgs(
            "--checkouts",
            "6",
            "--in-flight",
            "3",
            "--no-mariadb",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            TestInfrastructure.kafka().bootstrapServers(),
            "--json",
            "--dashboard",
            "--dashboard-port",
            "0");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      Future<Integer> status = runner.submit(demo::call);
      Awaitility.await()
          .atMost(Duration.ofMinutes(3))
          .until(() -> demo.dashboards != null || status.isDone());
      assertThat(status.isDone()).as("the demo holds while the dashboards are open").isFalse();
      String reportLine = // the logs may share standard output with the report
          out.toString(StandardCharsets.UTF_8)
              .lines()
              .filter(l -> l.startsWith("{\"mode\""))
              .reduce((a, b) -> b)
              .orElseThrow(() -> new AssertionError("no JSON report on standard output"));
      JsonNode report = new ObjectMapper().readTree(reportLine);
      Map<String, String> urls = demo.dashboards.urls();
      assertThat(urls)
          .containsOnlyKeys("checkout-orchestrator", "order", "payment", "inventory", "shipping");

      Awaitility.await() // the gauges are read from the database every 2 s
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                PrometheusScrape sagas = scrape(urls.get("checkout-orchestrator"));
                assertThat(sagas.value("tandem_saga_instances", "status", "COMPLETED"))
                    .as("the orchestrator's dashboard reads the run's sagas")
                    .isEqualTo(report.get("completed").asDouble())
                    .isPositive();
                assertThat(sagas.value("tandem_saga_instances", "status", "COMPENSATED"))
                    .isEqualTo(report.get("compensated").asDouble());
                PrometheusScrape orders = scrape(urls.get("order"));
                assertThat(orders.value("tandem_outbox_pending")).isZero();
                assertThat(orders.value("tandem_outbox_relays")).isPositive();
                assertThat(orders.has("tandem_saga_instances", "status", "COMPLETED"))
                    .as("the order service's dashboard reads its own database: no sagas there")
                    .isFalse();
              });
      assertThat(get(urls.get("payment")).statusCode()).isEqualTo(200);

      Map<String, String> services = demo.dashboards.metricsUrls();
      assertThat(services)
          .as("every service runs in the demo's JVM and serves its own meters")
          .containsOnlyKeys("checkout-orchestrator", "order", "payment", "inventory", "shipping");
      Awaitility.await() // each consumer's lag is read from its fetch responses
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                PrometheusScrape orchestrator = scrapeUrl(services.get("checkout-orchestrator"));
                assertThat(orchestrator.value("tandem_saga_started_total"))
                    .as("every saga of the run was started by the in-process orchestrator")
                    .isEqualTo(report.get("sagas").asDouble());
                assertThat(
                        orchestrator.value(
                            "tandem_saga_duration_seconds_count", "status", "COMPLETED"))
                    .isEqualTo(report.get("completed").asDouble());
                assertThat(orchestrator.value("tandem_saga_compensations_total"))
                    .as("compensated sagas ran compensations")
                    .isPositive();
                assertThat(
                        orchestrator.value(
                            "tandem_consumer_lag", "consumer", "checkout-orchestrator"))
                    .isZero();
                for (String service : List.of("order", "payment", "inventory", "shipping")) {
                  PrometheusScrape own = scrapeUrl(services.get(service));
                  assertThat(own.value("tandem_consumer_applied_total", "consumer", service))
                      .as(service + " applied its commands")
                      .isPositive();
                  assertThat(own.has("tandem_consumer_duplicates_total", "consumer", service))
                      .isTrue();
                  assertThat(own.value("tandem_consumer_lag", "consumer", service)).isZero();
                  assertThat(own.value("tandem_relay_published_total"))
                      .as(service + " published its replies")
                      .isPositive();
                  assertThat(own.has("tandem_saga_started_total"))
                      .as(service + " is a participant, not the orchestrator")
                      .isFalse();
                }
              });
      HttpResponse<String> health = get(services.get("order").replace("/metrics", "/health"));
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"running\"");

      demo.stopDashboards.countDown();
      assertThat(status.get(60, TimeUnit.SECONDS)).isZero();
      assertThat(demo.dashboards).isNull();
      assertThatThrownBy(() -> get(urls.get("order") + "metrics"))
          .as("the dashboards are closed with the demo")
          .isInstanceOf(java.io.IOException.class);
      assertThatThrownBy(() -> get(services.get("order")))
          .as("the services' endpoints too")
          .isInstanceOf(java.io.IOException.class);
    } finally {
      System.setOut(stdout);
      demo.stopDashboards.countDown();
      runner.shutdownNow();
    }
  }

  @Test
  void theDashboardIsRefusedWhereTheDemoDoesNotKeepItsServices() {
    assertThatThrownBy(() -> parse("--mode", "choreography", "--dashboard").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--dashboard applies to --mode orchestration");
    assertThatThrownBy(() -> parse("--scenario", "outbox", "--dashboard").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--dashboard applies to --scenario checkout");
  }

  private static DemoCommand parse(String... args) {
    DemoCommand command = new DemoCommand();
    new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
    return command;
  }

  private static PrometheusScrape scrape(String base) throws Exception {
    HttpResponse<String> metrics = get(base + "metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    return PrometheusScrape.parse(metrics.body());
  }

  private static PrometheusScrape scrapeUrl(String url) throws Exception {
    HttpResponse<String> metrics = get(url);
    assertThat(metrics.statusCode()).isEqualTo(200);
    return PrometheusScrape.parse(metrics.body());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
