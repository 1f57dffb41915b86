package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON contracts of {@code tandem compare --json} and {@code tandem bench xa --json}. */
class CompareReportTest {

  @Test
  void compareJsonHasAnApproachesListWithExactlyTheIssuesKeys() throws Exception {
    CompareReport report =
        new CompareReport(
            List.of(
                new CompareReport.Approach("2pc", 451.2, 12.9, 79.0, 10.5, 1, 210, 5221, "k"),
                new CompareReport.Approach("saga", 20.8, 327.9, 966.1, 9.1, 1842, 1899, 656, "k"),
                new CompareReport.Approach("outbox", 90.5, 69.6, 299.0, 8.7, 636, 650, -1, "k")),
            200,
            8);

    JsonNode root = new ObjectMapper().readTree(report.toJson());

    assertThat(fields(root)).containsExactly("approaches");
    assertThat(root.get("approaches")).hasSize(3);
    for (JsonNode a : root.get("approaches")) {
      assertThat(fields(a))
          .containsExactly(
              "name",
              "transfers_per_s",
              "p50_ms",
              "p99_ms",
              "lock_ms",
              "intermediate_reads",
              "recovery_ms");
    }
    assertThat(root.get("approaches").get(0).get("name").asText()).isEqualTo("2pc");
    assertThat(root.get("approaches").get(1).get("intermediate_reads").asLong()).isEqualTo(1842);
    assertThat(root.get("approaches").get(2).get("recovery_ms").asLong()).isEqualTo(-1);
    assertThat(report.toTable()).contains("1842 of 1899").contains("saga kill: k");
  }

  @Test
  void benchXaJsonLeadsWithItsContractAndComputesTheRatio() throws Exception {
    XaBenchReport r = new XaBenchReport(10_000, 8, 450, 12.9, 79.0, 1300, 4.7, 25.8, true, "db");
    JsonNode root = new ObjectMapper().readTree(r.toJson());
    assertThat(fields(root))
        .startsWith("transfers_per_s", "ratio", "p50_ms", "p99_ms", "bound_transfers_per_s");
    assertThat(root.get("ratio").asDouble()).isEqualTo(0.346);
    assertThat(root.get("money_conserved").asBoolean()).isTrue();
  }

  private static List<String> fields(JsonNode n) {
    List<String> names = new ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
