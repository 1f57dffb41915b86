package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SagaBenchReportTest {

  private static SagaBenchReport report(Double cpuPerSaga, Double floorCpu) {
    return new SagaBenchReport(
        2_000,
        100.0, // sagas/s
        400.0,
        900.0,
        10.0, // commits per saga measured (a diagnostic: the bound uses the fixed 9)
        8_100.0,
        9_900.0, // commits/s: mean 9,000, so the bound is 9,000 / 9 = 1,000 sagas/s
        20,
        3_000.0,
        2.0,
        11.0,
        cpuPerSaga,
        0.25,
        1.9,
        320.0, // floor checkouts/s
        floorCpu,
        50,
        4,
        1,
        "embedded PostgreSQL (fsync on)");
  }

  @Test
  void theBoundIsTheMeanCommitRateOverNineCommitsAndTheFloorRatioIsSagaOverFloor() {
    SagaBenchReport r = report(20.0, 5.0);

    assertThat(r.boundPerSec()).isEqualTo(1_000.0);
    assertThat(r.ratio()).isEqualTo(0.1);
    assertThat(r.floorRatio()).isEqualTo(100.0 / 320.0);
    assertThat(r.floorBoundRatio()).isEqualTo(0.32);
  }

  @Test
  void jsonStartsWithTheContractKeysAndCarriesTheFloor() {
    String json = report(20.0, 5.0).toJson();

    assertThat(keys(json))
        .startsWith("sagas_per_s", "bound_per_s", "ratio", "p50_ms", "p99_ms")
        .contains("floor_sagas_per_s", "floor_ratio", "floor_cpu_ms_per_saga");
    assertThat(json)
        .contains("\"ratio\": 0.100")
        .contains("\"floor_sagas_per_s\": 320.0")
        .contains("\"floor_ratio\": 0.313")
        .contains("\"floor_bound_ratio\": 0.320")
        .contains("\"floor_cpu_ms_per_saga\": 5.00");
  }

  @Test
  void cpuFiguresAreNullOnAServerTheBenchmarkDoesNotOwn() {
    String json = report(null, null).toJson();

    assertThat(json)
        .contains("\"cpu_ms_per_saga\": null")
        .contains("\"floor_cpu_ms_per_saga\": null");
  }

  private static List<String> keys(String json) {
    List<String> keys = new ArrayList<>();
    Matcher m = Pattern.compile("\"([a-z0-9_]+)\":").matcher(json);
    while (m.find()) {
      keys.add(m.group(1));
    }
    return keys;
  }
}
