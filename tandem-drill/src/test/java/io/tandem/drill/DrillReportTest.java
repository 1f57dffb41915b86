package io.tandem.drill;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrillReportTest {

  @Test
  void jsonHasTheDocumentedKeysAndCounts() throws Exception {
    DrillReport report =
        new DrillReport(
            List.of(
                new DrillResult(
                    "relay-crash-after-ack",
                    DrillResult.Verdict.PASS,
                    300,
                    300,
                    300,
                    21,
                    0,
                    0,
                    0,
                    4614,
                    List.of("relay halted: \"yes\"")),
                DrillResult.failed("broker-outage", "the drill itself failed: boom"),
                DrillResult.notAvailable("cdc-stopped", "no CDC relay")));

    JsonNode json = new ObjectMapper().readTree(report.toJson());

    assertThat(json.get("passed").asInt()).isEqualTo(1);
    assertThat(json.get("failed").asInt()).isEqualTo(1);
    JsonNode first = json.get("drills").get(0);
    assertThat(first.get("name").asText()).isEqualTo("relay-crash-after-ack");
    assertThat(first.get("result").asText()).isEqualTo("PASS");
    for (String key :
        List.of(
            "committed",
            "delivered",
            "duplicates_delivered",
            "duplicate_side_effects",
            "lost",
            "order_violations",
            "recovery_ms")) {
      assertThat(first.has(key)).as(key).isTrue();
    }
    assertThat(first.get("duplicates_delivered").asLong()).isEqualTo(21);
    assertThat(first.get("detail").get(0).asText()).isEqualTo("relay halted: \"yes\"");
    assertThat(json.get("drills").get(2).get("result").asText()).isEqualTo("NOT_AVAILABLE");
    assertThat(report.ok()).isFalse();
  }

  @Test
  void notAvailableIsNeitherPassedNorFailed() {
    DrillReport report = new DrillReport(List.of(DrillResult.notAvailable("cdc-stopped", "n/a")));
    assertThat(report.passed()).isZero();
    assertThat(report.failed()).isZero();
    assertThat(report.ok()).isTrue();
  }

  @Test
  void tableShowsEveryDrillAndItsDetail() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    new DrillReport(List.of(DrillResult.failed("out-of-order", "why it failed")))
        .printTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String table = bytes.toString(StandardCharsets.UTF_8);
    assertThat(table).contains("out-of-order", "FAIL", "why it failed", "passed 0, failed 1");
  }

  @Test
  void namesResolveInCatalogOrderAndUnknownOnesAreRefused() {
    assertThat(DrillRunner.resolve(List.of())).hasSize(13).startsWith("service-crash-after-commit");
    assertThat(DrillRunner.resolve(List.of("all")))
        .hasSize(13)
        .contains("broker-failover", "database-failover");
    assertThat(DrillRunner.resolve(List.of("out-of-order", "relay-crash-after-ack")))
        .containsExactly("relay-crash-after-ack", "out-of-order");
    assertThatThrownBy(() -> DrillRunner.resolve(List.of("relay-crash")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown drill 'relay-crash'")
        .hasMessageContaining("relay-crash-after-ack");
  }

  @Test
  void settingsRefuseBadValuesWithTheOptionName() {
    DrillSettings ok = DrillSettings.defaults(java.nio.file.Path.of("/tmp"));
    assertThatThrownBy(() -> ok.withEvents(5)).hasMessageContaining("--events");
    assertThatThrownBy(() -> ok.withOutage(java.time.Duration.ZERO))
        .hasMessageContaining("--outage");
    assertThatThrownBy(() -> ok.withServers("jdbc:mariadb://x/y", null))
        .hasMessageContaining("--jdbc-url");
    assertThatThrownBy(() -> ok.withKafkaCluster(2)).hasMessageContaining("--kafka-cluster");
    assertThatThrownBy(() -> ok.withServers(null, "k:9092").withKafkaCluster(3))
        .hasMessageContaining("--kafka-bootstrap");
  }
}
