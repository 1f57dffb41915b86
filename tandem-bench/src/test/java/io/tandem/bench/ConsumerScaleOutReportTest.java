package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerScaleOutReportTest {

  private static final ConsumerScaleOutReport REPORT =
      new ConsumerScaleOutReport(
          List.of(
              new ConsumerScaleOutReport.Row(
                  1,
                  4000,
                  5_000,
                  400,
                  "8",
                  "20000",
                  6,
                  12,
                  new long[] {4000, 3500, 800, 600, 9_000}),
              new ConsumerScaleOutReport.Row(
                  2,
                  5000,
                  5_000,
                  410,
                  "4/4",
                  "10100/9900",
                  7,
                  15,
                  new long[] {2200, 2100, 2900, 700, 500, 10_000})),
          20_000,
          1_000,
          4,
          2,
          "embedded PostgreSQL (fsync on)");

  @Test
  void speedupIsAgainstTheFirstCountAndBusyIsTheMachinesShareOfItsCores() {
    assertThat(REPORT.speedup(REPORT.rows().get(1))).isEqualTo(1.25);
    // 10,000 busy ms over 5,000 ms on 2 cores: the machine was fully busy.
    assertThat(REPORT.machineBusy(REPORT.rows().get(1))).isCloseTo(1.0, offset(0.001));
  }

  @Test
  void theJsonNamesEachProcessesCpuAndTheDistribution() {
    assertThat(REPORT.toJson())
        .startsWith("{\"events\": 20000, \"steady_rate_per_s\": 1000, \"lanes_per_consumer\": 4,")
        .contains("\"instances\": 2", "\"per_s\": 5000", "\"publish_ms\": 410")
        .contains("\"partitions_per_consumer\": \"4/4\"")
        .contains("\"applied_per_consumer\": \"10100/9900\"")
        .contains("\"p99_ms\": 15.0")
        .contains("\"cpu_ms_consumers\": \"2200/2100\"")
        .contains("\"cpu_ms_postgres\": 2900", "\"cpu_ms_kafka\": 700", "\"cpu_ms_bench\": 500")
        .contains("\"speedup\": 1.25", "\"machine_busy\": 1.00")
        // 10,000 busy ms on the machine, 8,400 of them in the measured processes
        .contains("\"cpu_ms_other\": 1600");
    assertThat(REPORT.toTable()).contains("4/4", "10100/9900", "2200/2100", "100%");
  }
}
