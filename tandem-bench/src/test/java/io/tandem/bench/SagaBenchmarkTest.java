package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.TestInfrastructure;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The saga benchmark end to end with its smallest run, on the shared PostgreSQL server and Kafka
 * broker: the saga run (which checks that every participant applied every saga exactly once) and
 * the floor (which checks its 9 rows per checkout) both complete, and the figures are consistent
 * with what one saga needs.
 */
@Tag("slow")
class SagaBenchmarkTest {

  @Test
  void smallestRunCompletesSagasAndFloorAgainstTheSameBound() throws Exception {
    SagaBenchReport r =
        new SagaBenchmark(
                100,
                10,
                2,
                TestInfrastructure.postgres().jdbcUrl(),
                TestInfrastructure.kafka().bootstrapServers(),
                null)
            .run();

    assertThat(r.sagas()).isEqualTo(100);
    assertThat(r.sagasPerSec()).isPositive();
    assertThat(r.floorSagasPerSec()).isPositive();
    // 9 durable commits per saga, plus one marking transaction per published batch of its 8
    // messages
    assertThat(r.relayMarksPerSaga()).isGreaterThan(0).isLessThanOrEqualTo(8);
    assertThat(r.commitsPerSaga()).isBetween(9 + r.relayMarksPerSaga() - 0.05, 17.0);
    assertThat(r.commitsPerSec()).isPositive();
    assertThat(r.ratio()).isEqualTo(r.sagasPerSec() / r.boundPerSec());
    assertThat(r.boundPerSec()).isEqualTo(r.commitsPerSec() / 9);
    assertThat(r.floorRatio()).isEqualTo(r.sagasPerSec() / r.floorSagasPerSec());
    assertThat(r.floorBoundRatio()).isEqualTo(r.floorSagasPerSec() / r.boundPerSec());
    // the shared server is not the benchmark's own: no server-wide figures
    assertThat(r.serverXactsPerSaga()).isNull();
    assertThat(r.floorCpuMillisPerSaga()).isNull();
  }
}
