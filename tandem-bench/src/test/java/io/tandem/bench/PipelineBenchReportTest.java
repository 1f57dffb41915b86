package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PipelineBenchReportTest {

  @Test
  void theRatioIsThePipelineAgainstTheWritersAloneAndTheContractKeysComeFirst() {
    PipelineBenchReport r =
        new PipelineBenchReport(
            600.0, 1_500.0, 900.0, 40.0, 120.0, 300.0, 990.0, 35.0, 0.5, 20, "db");

    assertThat(r.ratio()).isEqualTo(0.4);
    assertThat(r.toJson())
        .startsWith(
            "{\"pipeline_per_s\": 600.0, \"writers_alone_per_s\": 1500.0, \"ratio\": 0.400,"
                + " \"p99_ms\": 120.0, \"backlog_growth_per_s\": 300.0,"
                + " \"p99_ms_at_1000_per_s\": 35.0,");
  }
}
