package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.bench.RelayScaleOutBenchmark.ScaleOutReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScaleOutReportTest {

  private static final ScaleOutReport REPORT =
      new ScaleOutReport(
          List.of(
              new ScaleOutReport.Row(
                  1,
                  1000,
                  20_000,
                  "64",
                  "20000",
                  30,
                  200,
                  new long[] {5000, 9000, 2000, 300, 30_000}),
              new ScaleOutReport.Row(
                  2,
                  1500,
                  13_333,
                  "32/32",
                  "10100/9900",
                  40,
                  150,
                  new long[] {3000, 3100, 8000, 1500, 200, 26_666})),
          20_000,
          500,
          2,
          "embedded PostgreSQL (fsync on)");

  @Test
  void speedupIsAgainstTheFirstCountAndBusyIsTheMachinesShareOfItsCores() {
    assertThat(REPORT.speedup(REPORT.rows().get(1))).isEqualTo(1.5);
    // 26,666 busy ms over 13,333 ms on 2 cores: the machine was fully busy.
    assertThat(REPORT.machineBusy(REPORT.rows().get(1)))
        .isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.001));
  }

  @Test
  void theJsonNamesEachProcessesCpuAndTheDistribution() {
    String json = REPORT.toJson();
    assertThat(json)
        .contains("\"instances\": 2")
        .contains("\"partitions_per_relay\": \"32/32\"")
        .contains("\"published_per_relay\": \"10100/9900\"")
        .contains("\"cpu_ms_relays\": \"3000/3100\"")
        .contains("\"cpu_ms_postgres\": 8000")
        .contains("\"cpu_ms_kafka\": 1500")
        .contains("\"speedup\": 1.50")
        .contains("\"machine_busy\": 1.00");
    assertThat(REPORT.toTable()).contains("32/32").contains("3000/3100");
  }
}
