package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The pipeline benchmark's figures, all from one run on the same database server and broker.
 *
 * @param pipelinePerSec effects committed per second by the consumer while the writers went as fast
 *     as they could, at most the writers' rate in the same window (the rate sustained end to end)
 * @param writersAlonePerSec the same writers' commits per second with no relay and no consumer
 * @param writersWithPipelinePerSec the writers' commits per second beside the relay and consumer
 * @param p50Ms writer's commit to the consumer's commit of the effect, median, at full speed
 * @param p99Ms the same, 99th percentile
 * @param backlogGrowthPerSec how fast committed-but-not-applied events grew at full speed
 * @param offeredAt1000PerSec the rate the paced writers reached when offering 1,000 events/s
 * @param p99MsAt1000PerSec commit to effect, 99th percentile, at 1,000 events/s offered
 * @param backlogGrowthPerSecAt1000 backlog growth at 1,000 events/s offered
 * @param windowSeconds the measured window of each phase
 * @param database the database the figures come from
 */
public record PipelineBenchReport(
    double pipelinePerSec,
    double writersAlonePerSec,
    double writersWithPipelinePerSec,
    double p50Ms,
    double p99Ms,
    double backlogGrowthPerSec,
    double offeredAt1000PerSec,
    double p99MsAt1000PerSec,
    double backlogGrowthPerSecAt1000,
    long windowSeconds,
    String database) {

  /** pipeline_per_s / writers_alone_per_s. */
  public double ratio() {
    return pipelinePerSec / writersAlonePerSec;
  }

  /** One JSON object; the first six keys are the benchmark's contract (issue 22). */
  public String toJson() {
    return BenchOutput.json(map());
  }

  public String toTable() {
    return BenchOutput.table(map(), 30);
  }

  private Map<String, Object> map() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pipeline_per_s", num(pipelinePerSec));
    m.put("writers_alone_per_s", num(writersAlonePerSec));
    m.put("ratio", String.format(Locale.ROOT, "%.3f", ratio()));
    m.put("p99_ms", num(p99Ms));
    m.put("backlog_growth_per_s", num(backlogGrowthPerSec));
    m.put("p99_ms_at_1000_per_s", num(p99MsAt1000PerSec));
    m.put("p50_ms", num(p50Ms));
    m.put("writers_with_pipeline_per_s", num(writersWithPipelinePerSec));
    m.put("offered_at_1000_per_s", num(offeredAt1000PerSec));
    m.put("backlog_growth_per_s_at_1000", num(backlogGrowthPerSecAt1000));
    m.put("window_s", windowSeconds);
    m.put("database", "\"" + database + "\"");
    m.put("jit", "\"" + BenchJvm.describe() + "\"");
    return m;
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
