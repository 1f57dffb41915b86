package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one {@code tandem bench consumer --instances} run, one row per consumer count.
 *
 * @param rows one per consumer count, in the order measured
 * @param events events drained per count
 * @param steadyRate events/s offered for the latency figures
 * @param lanes lanes of each consumer process
 * @param cores the machine's cores
 * @param database the database the figures come from
 */
public record ConsumerScaleOutReport(
    List<Row> rows, int events, int steadyRate, int lanes, int cores, String database) {

  /**
   * One consumer count: throughput draining the events published beforehand (events over the span
   * from the first effect to the last), the time from letting the consumers go to the last effect
   * (group join included), how long publishing took (before, not overlapping), partitions and
   * effects per consumer, latency at the steady rate, and CPU ms from letting the consumers go to
   * the last effect: each consumer, then PostgreSQL, the Kafka broker process (0 for a given
   * cluster), this JVM, the machine (every process on it, those of others included).
   */
  public record Row(
      int instances,
      double perSec,
      double drainMs,
      double publishMs,
      String partitionsPerConsumer,
      String appliedPerConsumer,
      double p50Ms,
      double p99Ms,
      long[] cpuMs)
      implements ScaleOutRow {

    /** The row's figures for the JSON report, in order. */
    @Override
    public Map<String, Object> figures() {
      Map<String, Object> own = new LinkedHashMap<>();
      own.put("publish_ms", Math.round(publishMs));
      own.put("partitions_per_consumer", "\"" + partitionsPerConsumer + "\"");
      own.put("applied_per_consumer", "\"" + appliedPerConsumer + "\"");
      Map<String, Object> f = figures(own, "consumers");
      f.put("cpu_ms_other", otherCpu());
      return f;
    }
  }

  /** Throughput of a count over that of the first count measured. */
  double speedup(Row row) {
    return ScaleOutRow.speedup(rows, row);
  }

  /** The machine's busy share during a drain: busy CPU ms / (drain ms × cores). */
  double machineBusy(Row row) {
    return row.machineBusy(cores);
  }

  public String toJson() {
    StringBuilder sb = new StringBuilder("{\"events\": ").append(events);
    sb.append(", \"steady_rate_per_s\": ").append(steadyRate);
    sb.append(", \"lanes_per_consumer\": ").append(lanes);
    sb.append(", \"cores\": ").append(cores);
    sb.append(", \"database\": \"").append(database).append("\"");
    return ScaleOutRow.json(sb, rows, cores);
  }

  public String toTable() {
    StringBuilder sb = new StringBuilder();
    String format = "%-9s %9s %7s %-16s %-24s %7s %7s %-22s %8s %7s %7s %7s %6s%n";
    sb.append(
        String.format(
            Locale.ROOT,
            format,
            "consumers",
            "events/s",
            "speedup",
            "partitions",
            "applied",
            "p50_ms",
            "p99_ms",
            "cpu_ms consumers",
            "postgres",
            "kafka",
            "bench",
            "other",
            "busy"));
    for (Row r : rows) {
      sb.append(
          String.format(
              Locale.ROOT,
              "%-9d %9.0f %7.2f %-16s %-24s %7.1f %7.1f %-22s %8d %7d %7d %7d %5.0f%%%n",
              r.instances(),
              r.perSec(),
              speedup(r),
              r.partitionsPerConsumer(),
              r.appliedPerConsumer(),
              r.p50Ms(),
              r.p99Ms(),
              r.instancesCpu(),
              r.postgresCpu(),
              r.kafkaCpu(),
              r.benchCpu(),
              r.otherCpu(),
              100 * machineBusy(r)));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "%d events drained per count; %d lanes per consumer; latency at %d events/s offered;"
                + " %d cores; %s%n",
            events,
            lanes,
            steadyRate,
            cores,
            database));
    return sb.toString();
  }
}
