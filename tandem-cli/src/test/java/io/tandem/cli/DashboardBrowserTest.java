package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxOperations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PrometheusScrape;
import io.tandem.testkit.TestInfrastructure;
import io.tandem.xa.XaOperations;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.postgresql.xa.PGXADataSource;

/**
 * {@code tandem dashboard} end to end in a real browser (Debian's chromium through its
 * chromedriver, headless): a relay publishes real traffic from a real database into a transport
 * that refuses one event for good; the page shows the live numbers, a replay without the token is
 * refused and changes nothing, a replay with it puts the event back and the relay publishes it, the
 * action is recorded with its operator, {@code /metrics} carries the database's gauges, and the CDC
 * and two-phase-commit panels show a replication slot and a prepared branch of another database.
 * Screenshots go to {@code target/dashboard-screenshots/}. Skipped when chromium or chromedriver is
 * missing ({@code .ci/install-chromium}), unless {@code TANDEM_REQUIRE_TOOLS=1}.
 */
class DashboardBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");
  private static final String TOKEN = DashboardCommand.generatedToken();

  @TempDir Path profile;
  private IsolatedDatabase db;
  private IsolatedDatabase participant;
  private XaOperations xa;
  private final String slot = "dash_" + UUID.randomUUID().toString().substring(0, 8);
  private final String gid = "foreign-dash-" + UUID.randomUUID();
  private OutboxRelay relay;
  private DashboardServer dashboard;
  private WebDriver browser;
  private final AtomicBoolean refusing = new AtomicBoolean(true);

  @BeforeEach
  void start() throws Exception {
    boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    if (!present) {
      String message = "chromium or chromedriver missing under /usr/bin: run .ci/install-chromium";
      if ("1".equals(System.getenv("TANDEM_REQUIRE_TOOLS"))) {
        throw new AssertionError(message + " (TANDEM_REQUIRE_TOOLS=1)");
      }
      System.err.println("DashboardBrowserTest skipped: " + message);
      Assumptions.abort(message);
    }
    db = TestInfrastructure.postgres().createDatabase("dashboard_browser");
    Migrations.migrate(db.dataSource());
    relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .transport(new RefusingTransport())
            .relayId("dashboard-test-relay")
            .pollInterval(Duration.ofMillis(50))
            .build();
    relay.start();
    sql(db, "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    participant = TestInfrastructure.postgres().createDatabase("dashboard_participant");
    try (Connection c = participant.dataSource().getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      s.execute("CREATE TABLE t (id int)");
      s.execute("INSERT INTO t VALUES (1)");
      s.execute("PREPARE TRANSACTION '" + gid + "'");
    }
    PGXADataSource xaSource = new PGXADataSource();
    xaSource.setUrl(participant.jdbcUrl());
    xa =
        XaOperations.builder()
            .decisionLog(db.dataSource())
            .participant("accounts", xaSource)
            .build();
    dashboard =
        new DashboardServer(
            HttpEndpoint.of("127.0.0.1", 0, false, null, Map.of()),
            TOKEN,
            db.dataSource(),
            List.of("billing"),
            Duration.ofMillis(500),
            List.of(new CdcPanel(db.dataSource(), slot), new InDoubtPanel(xa)));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--window-size=1400,1600",
        "--user-data-dir=" + profile.resolve("chromium"));
    browser = new ChromeDriver(service, options);
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (dashboard != null) {
      dashboard.close();
    }
    if (relay != null) {
      relay.close();
    }
    if (xa != null) {
      xa.close();
    }
    if (participant != null) {
      sqlQuietly(participant, "ROLLBACK PREPARED '" + gid + "'");
      participant.close();
    }
    if (db != null) {
      sqlQuietly(db, "SELECT pg_drop_replication_slot('" + slot + "')");
      db.close();
    }
  }

  private static void sql(IsolatedDatabase on, String statement) throws SQLException {
    try (Connection c = on.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  private static void sqlQuietly(IsolatedDatabase on, String statement) {
    try {
      sql(on, statement);
    } catch (SQLException e) {
      System.err.println("cleanup: " + statement + ": " + e.getMessage());
    }
  }

  @Test
  void thePageShowsLiveNumbersRefusesAnActionWithoutTheTokenAndReplaysWithIt() throws Exception {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      events.add(event("OrderPlaced", "o-" + i));
    }
    Event poison = event("Poison", "o-poison");
    events.add(poison);
    append(events);
    OutboxOperations ops = OutboxOperations.create(db.dataSource());
    await().atMost(Duration.ofSeconds(20)).until(() -> ops.status().quarantined() == 1);

    browser.get("http://127.0.0.1:" + dashboard.port() + "/");
    await().atMost(Duration.ofSeconds(20)).until(() -> text("quarantined").equals("1"));
    await().atMost(Duration.ofSeconds(20)).until(() -> text("published").equals("4"));
    assertThat(text("pending")).isEqualTo(String.valueOf(ops.status().pending()));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !browser.findElements(By.cssSelector("button.replay")).isEmpty());
    assertThat(browser.findElement(By.id("quarantine")).getText())
        .contains(poison.eventId().toString())
        .contains("RECORD_TOO_LARGE");
    screenshot("1-overview");

    // the CDC slot and the other database's prepared (in-doubt) branch have their panels
    await().atMost(Duration.ofSeconds(10)).until(() -> text("cdc-slot").equals(slot));
    assertThat(text("cdc-active")).isEqualTo("no");
    assertThat(browser.findElement(By.id("xa-table")).getText()).contains(gid).contains("accounts");
    screenshot("1b-cdc-and-in-doubt");

    // more traffic while the page is open: the numbers follow
    append(List.of(event("OrderPlaced", "o-late")));
    await().atMost(Duration.ofSeconds(20)).until(() -> text("published").equals("5"));

    // an action without the token is refused and changes nothing
    refusing.set(false); // the broker would take it now: only the token stands in the way
    browser.findElement(By.cssSelector("button.replay")).click();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> browser.findElement(By.id("action-result")).getText().startsWith("refused"));
    screenshot("2-refused-without-token");
    assertThat(ops.status().quarantined()).isEqualTo(1);
    HttpResponse<String> bare =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + dashboard.port() + "/api/outbox/replay"))
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"eventId\":\"" + poison.eventId() + "\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(bare.statusCode()).isEqualTo(401);
    assertThat(ops.status().quarantined()).isEqualTo(1);
    assertThat(actions()).as("refused attempts write nothing").isEmpty();

    // with the token the replay goes through, the relay publishes it, the page follows
    browser.findElement(By.id("token")).sendKeys(TOKEN);
    browser.findElement(By.id("operator")).sendKeys("selenium-operator");
    browser.findElement(By.cssSelector("button.replay")).click();
    await().atMost(Duration.ofSeconds(20)).until(() -> publishedAt(poison.eventId()));
    await().atMost(Duration.ofSeconds(20)).until(() -> text("quarantined").equals("0"));
    await().atMost(Duration.ofSeconds(20)).until(() -> text("published").equals("6"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                browser.findElement(By.id("action-table")).getText().contains("selenium-operator"));
    assertThat(actions())
        .containsExactly("selenium-operator outbox.replay " + poison.eventId() + " DONE");
    screenshot("3-replayed");

    // one scrape of the dashboard covers the database's gauges
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + dashboard.port() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    PrometheusScrape scrape = PrometheusScrape.parse(metrics.body());
    assertThat(scrape.has("tandem_outbox_pending")).isTrue();
    assertThat(scrape.has("tandem_outbox_oldest_pending_age")).isTrue();
    assertThat(scrape.value("tandem_saga_stuck")).isZero();
  }

  private String text(String id) {
    return browser.findElement(By.id(id)).getText().strip();
  }

  private void screenshot(String name) throws Exception {
    Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

  private static Event event(String type, String aggregate) {
    return Event.builder()
        .aggregate("Order", aggregate, 1)
        .eventType(type)
        .payload("{\"orderId\":\"" + aggregate + "\"}")
        .build();
  }

  private void append(List<Event> events) throws Exception {
    Transactions.inTransaction(
        db.dataSource(),
        c -> {
          Outbox.create().appendAll(c, events);
          return null;
        });
  }

  private boolean publishedAt(UUID eventId) throws Exception {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT published_at IS NOT NULL FROM tandem_outbox WHERE event_id = ?")) {
      ps.setObject(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private List<String> actions() throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT operator, action, target, outcome FROM tandem_dashboard_action ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(
            rs.getString(1)
                + " "
                + rs.getString(2)
                + " "
                + rs.getString(3)
                + " "
                + rs.getString(4));
      }
    }
    return out;
  }

  /** Acknowledges every event except "Poison" ones while refusing: those it rejects for good. */
  private final class RefusingTransport implements Transport {
    @Override
    public String name() {
      return "refusing";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      return events.stream()
          .map(
              e ->
                  refusing.get() && e.eventType().equals("Poison")
                      ? PublishOutcome.failed(
                          e.eventId(),
                          new PublishException(
                              ErrorClass.RECORD_TOO_LARGE, "refused by the test broker", null))
                      : PublishOutcome.acknowledged(e.eventId()))
          .toList();
    }

    @Override
    public void close() {}
  }
}
