package io.tandem.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** The sample as a user runs it: HTTP in, the order and its event committed, shipped once. */
class OrderServiceApplicationTest {
  static ConfigurableApplicationContext context;
  static String base;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    SpringApplication app = new SpringApplication(OrderServiceApplication.class);
    Map<String, Object> properties =
        new HashMap<>(OrderServiceApplication.embeddedInfrastructure());
    properties.put("server.port", "0");
    properties.put("tandem.relay.poll-interval", "200ms");
    app.setDefaultProperties(properties);
    context = app.run();
    base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
  }

  @AfterAll
  static void stop() {
    if (context != null) {
      context.close();
    }
  }

  @Test
  void aPlacedOrderIsShippedOnceThroughTheOutboxKafkaAndTheInbox() throws Exception {
    HttpResponse<String> placed = post("{\"item\":\"book\",\"quantity\":2}");
    assertThat(placed.statusCode()).isEqualTo(200);
    Matcher m = Pattern.compile("\"orderId\"\\s*:\\s*\"([^\"]+)\"").matcher(placed.body());
    assertThat(m.find()).as(placed.body()).isTrue();
    String orderId = m.group(1);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> get("/orders/" + orderId).body().contains("\"shipment_id\":\""));
    Thread.sleep(500); // room for a duplicate shipment to show up
    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
    assertThat(
            jdbc.queryForObject(
                "SELECT count(*) FROM shipments WHERE order_id = ?", Long.class, orderId))
        .isOne();
    assertThat(get("/actuator/health").body()).contains("\"tandem\"");
  }

  @Test
  void aRejectedOrderLeavesNeitherAnOrderNorAnEvent() throws Exception {
    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
    long events = jdbc.queryForObject("SELECT count(*) FROM tandem_outbox", Long.class);
    long orders = jdbc.queryForObject("SELECT count(*) FROM orders", Long.class);

    HttpResponse<String> refused = post("{\"item\":\"book\",\"quantity\":0}");
    assertThat(refused.statusCode()).isEqualTo(400);
    assertThat(refused.body()).contains("quantity must be at least 1, was 0");

    assertThat(jdbc.queryForObject("SELECT count(*) FROM tandem_outbox", Long.class))
        .isEqualTo(events);
    assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Long.class)).isEqualTo(orders);
  }

  private static HttpResponse<String> post(String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + "/orders"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
