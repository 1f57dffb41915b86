package io.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pipeline benchmark end to end with its shortest window on the shared PostgreSQL server and
 * Kafka broker: both phases run to the end, which means every committed order got exactly one
 * invoice (the benchmark fails otherwise), and the figures hang together.
 */
@Tag("slow")
class PipelineBenchmarkTest {

  @Test
  void theShortestRunAppliesEveryOrderOnceAndReportsConsistentFigures() throws Exception {
    PipelineBenchReport r =
        new PipelineBenchmark(
                Duration.ofSeconds(5),
                TestInfrastructure.postgres().jdbcUrl(),
                TestInfrastructure.kafka().bootstrapServers(),
                null)
            .run();

    assertThat(r.writersAlonePerSec()).isPositive();
    assertThat(r.pipelinePerSec()).isPositive();
    assertThat(r.ratio()).isEqualTo(r.pipelinePerSec() / r.writersAlonePerSec());
    assertThat(r.p50Ms()).isPositive().isLessThanOrEqualTo(r.p99Ms());
    // paced to 1,000/s: the writers reach about that, not more
    assertThat(r.offeredAt1000PerSec()).isBetween(100.0, 1_050.0);
    assertThat(r.p99MsAt1000PerSec()).isPositive();
    assertThat(r.toJson())
        .startsWith("{\"pipeline_per_s\": ")
        .contains("\"ratio\": ", "\"p99_ms_at_1000_per_s\": ", "\"backlog_growth_per_s\": ");
  }

  @Test
  void aWindowOutOfRangeIsRefused() {
    assertThatThrownBy(() -> new PipelineBenchmark(Duration.ofSeconds(1), null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the window must be between 5 s and 10 min, was 1 s");
  }
}
