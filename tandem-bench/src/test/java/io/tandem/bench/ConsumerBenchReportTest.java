package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsumerBenchReportTest {

  private static final ConsumerBenchReport REPORT =
      new ConsumerBenchReport(
          20_000, 1_000.0, 1_250.0, 8_000.0, 2_400.0, 800.0, 6.5, 21.25, 8, 500, "db");

  @Test
  void theRatiosAreTheInboxAgainstEachBareHandler() {
    assertThat(REPORT.inboxVsBareBatched()).isEqualTo(0.125);
    assertThat(REPORT.inboxVsBare()).isEqualTo(0.8);
    assertThat(REPORT.inboxCostRatio()).isEqualTo(1.25);
    assertThat(REPORT.parallelSpeedup()).isEqualTo(3.0);
  }

  @Test
  void jsonStartsWithTheContractKeys() {
    assertThat(REPORT.toJson())
        .startsWith(
            "{\"inbox_per_s\": 1000.0, \"bare_per_s\": 1250.0, \"bare_batched_per_s\": 8000.0,"
                + " \"inbox_vs_bare_batched\": 0.125, \"inbox_vs_bare\": 0.800,"
                + " \"parallel_speedup\": 3.000, \"p99_ms_at_1000_per_s\": 21.3,")
        .contains("\"p50_ms_at_1000_per_s\": 6.5", "\"batch\": 500");
  }
}
