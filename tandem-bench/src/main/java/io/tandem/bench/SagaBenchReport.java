package io.tandem.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The saga benchmark's figures, all from one run on the same PostgreSQL server and Kafka cluster.
 *
 * @param sagas checkouts in the measured run
 * @param sagasPerSec completed checkouts per second, first start to last completion
 * @param p50Millis median saga duration, start to {@code ended_at}
 * @param p99Millis 99th percentile of the saga duration
 * @param commitsPerSaga local commits one saga needed in the measured run: its start, one consumer
 *     transaction per command and per reply, and the relays' marking transactions amortised over
 *     their batches (a diagnostic: the bound uses {@link #BUSINESS_COMMITS_PER_SAGA})
 * @param commitsBefore small-transaction commits/s of the writers on the same databases, measured
 *     just before the saga run
 * @param commitsAfter the same, measured just after it
 * @param writers concurrent writers of the commit measurement
 * @param notifyingCommitsPerSec the same writers' commits/s when each transaction also sends a
 *     {@code pg_notify} (as every outbox insert does), measured after the run
 * @param relayMarksPerSaga the relays' marking transactions per saga (part of {@code
 *     commitsPerSaga})
 * @param serverXactsPerSaga transaction ids the whole server assigned per saga during the run
 *     (every writing transaction, lease heartbeats included); null on a server the benchmark does
 *     not own
 * @param floorSagasPerSec checkouts/s of {@link SagaFloor}: the same messages and commits per
 *     checkout with none of Tandem's machinery, on the same databases and broker, right after the
 *     run
 * @param floorCpuMillisPerSaga CPU time per floor checkout (this JVM, the broker, PostgreSQL); null
 *     on a server the benchmark does not own
 * @param inFlight most sagas running at once
 * @param lanes worker lanes of each consumer
 * @param orchestrators orchestrator instances (threads of the benchmark's JVM sharing the tables)
 * @param database the database the figures come from
 */
public record SagaBenchReport(
    int sagas,
    double sagasPerSec,
    double p50Millis,
    double p99Millis,
    double commitsPerSaga,
    double commitsBefore,
    double commitsAfter,
    int writers,
    double notifyingCommitsPerSec,
    double relayMarksPerSaga,
    Double serverXactsPerSaga,
    Double cpuMillisPerSaga,
    Double cpuMillisPerCommit,
    Double coresUsed,
    double floorSagasPerSec,
    Double floorCpuMillisPerSaga,
    int inFlight,
    int lanes,
    int orchestrators,
    String database) {

  /** Local commits/s of the database: the mean of the measurements before and after the run. */
  public double commitsPerSec() {
    return (commitsBefore + commitsAfter) / 2;
  }

  /**
   * The business commits one checkout needs whatever carries it: its start, four commands applied
   * by the participants, four replies applied by the orchestrator. Fixed, so the bound does not
   * move with how many commits Tandem's own run happened to spend (its relays' marks, for one).
   */
  public static final int BUSINESS_COMMITS_PER_SAGA = 9;

  /**
   * The sagas/s the database's commit rate allows: commits/s divided by {@value
   * #BUSINESS_COMMITS_PER_SAGA}.
   */
  public double boundPerSec() {
    return commitsPerSec() / BUSINESS_COMMITS_PER_SAGA;
  }

  /** sagas/s against {@link #boundPerSec()}. */
  public double ratio() {
    return sagasPerSec / boundPerSec();
  }

  /**
   * Tandem's sagas/s against the floor's in the same run: the saga with its outbox, inbox and
   * durable state against the bare hand-written pipeline with none of them (1.0: as fast).
   */
  public double floorRatio() {
    return sagasPerSec / floorSagasPerSec;
  }

  /** The floor's checkouts/s against {@link #boundPerSec()}. */
  public double floorBoundRatio() {
    return floorSagasPerSec / boundPerSec();
  }

  /** One JSON object; the first five keys are the benchmark's contract. */
  public String toJson() {
    return BenchOutput.json(map());
  }

  public String toTable() {
    return BenchOutput.table(map(), 26);
  }

  private Map<String, Object> map() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sagas_per_s", num(sagasPerSec));
    m.put("bound_per_s", num(boundPerSec()));
    m.put("ratio", String.format(Locale.ROOT, "%.3f", ratio()));
    m.put("p50_ms", num(p50Millis));
    m.put("p99_ms", num(p99Millis));
    m.put("commits_per_saga", String.format(Locale.ROOT, "%.2f", commitsPerSaga));
    m.put("commits_per_s", num(commitsPerSec()));
    m.put("commits_per_s_before", num(commitsBefore));
    m.put("commits_per_s_after", num(commitsAfter));
    m.put("writers", writers);
    m.put("notifying_commits_per_s", num(notifyingCommitsPerSec));
    m.put("relay_marks_per_saga", String.format(Locale.ROOT, "%.2f", relayMarksPerSaga));
    m.put("server_xacts_per_saga", opt(serverXactsPerSaga, "%.2f"));
    m.put("cpu_ms_per_saga", opt(cpuMillisPerSaga, "%.2f"));
    m.put("cpu_ms_per_commit", opt(cpuMillisPerCommit, "%.3f"));
    m.put("cores_used", opt(coresUsed, "%.2f"));
    m.put("floor_sagas_per_s", num(floorSagasPerSec));
    m.put("floor_ratio", String.format(Locale.ROOT, "%.3f", floorRatio()));
    m.put("floor_bound_ratio", String.format(Locale.ROOT, "%.3f", floorBoundRatio()));
    m.put("floor_cpu_ms_per_saga", opt(floorCpuMillisPerSaga, "%.2f"));
    m.put("sagas", sagas);
    m.put("in_flight", inFlight);
    m.put("lanes", lanes);
    m.put("orchestrators", orchestrators);
    m.put("database", "\"" + database + "\"");
    m.put("jit", "\"" + BenchJvm.describe() + "\"");
    return m;
  }

  private static String opt(Double v, String format) {
    return v == null ? "null" : String.format(Locale.ROOT, format, v);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
