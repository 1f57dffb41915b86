package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The standalone relay's HTTP endpoint, without a relay behind it. */
class HealthServerTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();
  private final List<HealthServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(HealthServer::close);
  }

  private HealthServer serve(HttpEndpoint endpoint, Supplier<HealthServer.Health> health)
      throws Exception {
    HealthServer server =
        new HealthServer(endpoint, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), health);
    servers.add(server);
    return server;
  }

  private HealthServer serve(Supplier<HealthServer.Health> health) throws Exception {
    return serve(new HttpEndpoint("127.0.0.1", 0, false, Optional.empty()), health);
  }

  private HttpResponse<String> get(HealthServer server, String path, String... headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .timeout(Duration.ofSeconds(10));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HealthServer.Health up(Object lastError) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", "UP");
    body.put("last_error", lastError);
    return new HealthServer.Health(true, body);
  }

  @Test
  void theBodyIsJsonWrittenByJacksonWhateverItsTextHolds() throws Exception {
    String awkward = "a \"quoted\" C:\\path\\ and\nnew line, \u0001 control, é, \u2028, </script>";
    HealthServer server = serve(() -> up(awkward));
    HttpResponse<String> response = get(server, "/health");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    JsonNode body = json.readTree(response.body());
    assertThat(body.get("status").asText()).isEqualTo("UP");
    assertThat(body.get("last_error").asText()).isEqualTo(awkward);

    HealthServer down =
        serve(() -> new HealthServer.Health(false, Map.of("status", "DOWN", "failing", true)));
    HttpResponse<String> downResponse = get(down, "/health");
    assertThat(downResponse.statusCode()).isEqualTo(503);
    assertThat(json.readTree(downResponse.body()).get("failing").asBoolean()).isTrue();
  }

  @Test
  void aFailureIsAnsweredWithItsSummaryNeverItsUrlOrCredentials() throws Exception {
    HealthServer server =
        serve(
            () -> {
              throw new IllegalStateException(
                  "cannot reach jdbc:postgresql://db.internal:5432/orders?user=relay&password=hunter2",
                  new SQLException(
                      "FATAL: password=hunter2 rejected for redis://:s3cret@cache\nmore"));
            });
    HttpResponse<String> response = get(server, "/health");
    assertThat(response.statusCode()).isEqualTo(500);
    String error = json.readTree(response.body()).get("error").asText();
    assertThat(error)
        .startsWith("IllegalStateException: cannot reach <url>")
        .contains("(cause SQLException: FATAL: password=*** rejected for <url>)")
        .doesNotContain("hunter2", "s3cret", "jdbc:", "db.internal", "\n", "more");
  }

  @Test
  void withATokenEveryRequestMustCarryIt() throws Exception {
    HealthServer server =
        serve(new HttpEndpoint("127.0.0.1", 0, false, Optional.of(TOKEN)), () -> up(null));
    for (String path : List.of("/health", "/metrics")) {
      HttpResponse<String> none = get(server, path);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
      assertThat(none.body()).doesNotContain(TOKEN);
      assertThat(get(server, path, "Authorization", "Bearer wrong-token-wrong-token").statusCode())
          .isEqualTo(401);
      assertThat(get(server, path, "Authorization", TOKEN).statusCode())
          .as("the token without its scheme")
          .isEqualTo(401);
      assertThat(get(server, path, "Authorization", "Bearer " + TOKEN).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aSlowHealthCheckHoldsUpNoOtherRequest() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    HealthServer server =
        serve(
            () -> {
              if (calls.incrementAndGet() == 1) {
                entered.countDown();
                try {
                  release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              return up(null);
            });
    CompletableFuture<Integer> slow =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return get(server, "/health").statusCode();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(get(server, "/metrics").statusCode()).isEqualTo(200);
      assertThat(get(server, "/health").statusCode()).isEqualTo(200);
      assertThat(slow).isNotDone();
    } finally {
      release.countDown();
    }
    assertThat(slow.get(10, TimeUnit.SECONDS)).isEqualTo(200);
  }

  @Test
  void onlyGetOfTheTwoPathsIsServed() throws Exception {
    HealthServer server = serve(() -> up(null));
    assertThat(get(server, "/healthz").statusCode()).isEqualTo(404);
    assertThat(get(server, "/").statusCode()).isEqualTo(404);
    HttpResponse<String> post =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/health"))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");
  }

  @Test
  void anAddressOutsideLoopbackNeedsTheFlagAndIsWarnedAbout() throws Exception {
    assertThatThrownBy(() -> HttpEndpoint.of("0.0.0.0", 0, false, null, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--http-host 0.0.0.0 is not a loopback address")
        .hasMessageContaining("--http-allow-remote");
    assertThat(HttpEndpoint.of("localhost", 0, false, null, Map.of()).warning()).isEmpty();
    assertThat(HttpEndpoint.of("::1", 0, false, null, Map.of()).remote()).isFalse();

    HttpEndpoint open = HttpEndpoint.of("0.0.0.0", 0, true, null, Map.of());
    assertThat(open.warning())
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .startsWith("WARNING: the relay's /health and /metrics listen on 0.0.0.0")
                    .contains("anyone who reaches this address"));
    HttpEndpoint guarded =
        HttpEndpoint.of("0.0.0.0", 0, true, null, Map.of(HttpEndpoint.TOKEN_VARIABLE, TOKEN));
    assertThat(guarded.warning())
        .hasValueSatisfying(w -> assertThat(w).contains("must carry the bearer token"));
    HealthServer server = serve(guarded, () -> up(null));
    assertThat(get(server, "/health").statusCode()).isEqualTo(401);
    assertThat(get(server, "/health", "Authorization", "Bearer " + TOKEN).statusCode())
        .isEqualTo(200);

    // The command refuses it before anything connects (nothing listens on port 1).
    RelayCommand relay = new RelayCommand();
    new CommandLine(relay)
        .parseArgs(
            "--kafka-bootstrap", "127.0.0.1:9092",
            "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/nowhere",
            "--http-host", "0.0.0.0");
    assertThatThrownBy(relay::call)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--http-allow-remote");
  }

  @Test
  void theTokenComesFromAFileOrTheEnvironmentNeverFromTheCommandLine(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, TOKEN + "\n");
    assertThat(HttpEndpoint.of("127.0.0.1", 0, false, file, Map.of()).token()).contains(TOKEN);
    assertThat(
            HttpEndpoint.of("127.0.0.1", 0, false, null, Map.of(HttpEndpoint.TOKEN_VARIABLE, TOKEN))
                .token())
        .contains(TOKEN);
    assertThat(HttpEndpoint.of("127.0.0.1", 0, false, null, Map.of()).token()).isEmpty();
    assertThatThrownBy(
            () -> HttpEndpoint.of("127.0.0.1", 0, false, dir.resolve("missing"), Map.of()))
        .hasMessageStartingWith("--http-token-file " + dir.resolve("missing") + " cannot be read");
    Files.writeString(file, "short");
    assertThatThrownBy(() -> HttpEndpoint.of("127.0.0.1", 0, false, file, Map.of()))
        .hasMessageContaining("at least 16 printable ASCII characters")
        .hasMessageNotContaining("short");

    RelayCommand relay = new RelayCommand();
    assertThatThrownBy(
            () ->
                new CommandLine(relay)
                    .parseArgs("--kafka-bootstrap", "127.0.0.1:9092", "--http-token", TOKEN))
        .isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    new CommandLine(relay)
        .parseArgs("--kafka-bootstrap", "127.0.0.1:9092", "--http-token-file", file.toString());
    assertThat(relay.httpTokenFile).isEqualTo(file);
  }

  @Test
  void theServerAnswersOnceStartedAndNotAfterClose() throws Exception {
    HealthServer server = serve(() -> up(null));
    await().atMost(Duration.ofSeconds(5)).until(() -> get(server, "/health").statusCode() == 200);
    server.close();
    assertThatThrownBy(() -> get(server, "/health")).isInstanceOf(java.io.IOException.class);
  }
}
