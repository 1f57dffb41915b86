package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The smallest runs of {@code tandem bench xa} and {@code tandem compare}, end to end. */
@Tag("slow")
@RequiresMariaDb
class CompareBenchmarkTest {

  @Test
  void benchXaConservesMoneyAndMeasuresBoth() throws Exception {
    XaBenchReport r =
        new XaBenchmark(200, 4, TestInfrastructure.postgres().jdbcUrl(), null, System.out).run();
    assertThat(r.moneyConserved()).isTrue();
    assertThat(r.transfersPerSec()).isPositive();
    assertThat(r.boundPerSec()).isPositive();
    assertThat(r.p99Millis()).isGreaterThanOrEqualTo(r.p50Millis());
  }

  @Test
  void compareMeasuresEveryApproachAndEachRecoversFromItsKill() throws Exception {
    CompareReport r =
        new CompareBenchmark(50, 4, TestInfrastructure.postgres().jdbcUrl(), null, null, System.out)
            .run();
    System.out.println(r.toTable());
    assertThat(r.approaches())
        .extracting(CompareReport.Approach::name)
        .containsExactly("2pc", "saga", "outbox");
    for (CompareReport.Approach a : r.approaches()) {
      assertThat(a.transfersPerSec()).as(a.name()).isPositive();
      assertThat(a.lockMillis()).as(a.name()).isPositive();
      assertThat(a.reads()).as(a.name()).isPositive();
      assertThat(a.recoveryMillis()).as(a.name() + " recovered after its kill").isNotNegative();
    }
    // Money in flight is what a saga and the outbox show a reader.
    assertThat(r.approaches().get(1).intermediateReads()).isPositive();
    assertThat(r.approaches().get(2).intermediateReads()).isPositive();
  }
}
