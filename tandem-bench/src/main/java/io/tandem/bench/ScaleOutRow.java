package io.tandem.bench;

import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.KafkaBrokerProcess;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One instance count of a scale-out run (relays or consumers), as both scale-out benchmarks measure
 * it: throughput over a drain, and CPU ms during it in one array laid out as each instance first,
 * then PostgreSQL, the Kafka broker process (0 for a given cluster), this JVM and the machine's
 * busy total (every process on it, those of others included).
 */
interface ScaleOutRow {
  /** How many relays or consumers ran. */
  int instances();

  /** Events per second over the drain. */
  double perSec();

  /** How long the drain took, in ms. */
  double drainMs();

  /** Median latency at the steady rate, in ms. */
  double p50Ms();

  /** 99th percentile latency at the steady rate, in ms. */
  double p99Ms();

  /** CPU ms during the drain, laid out as this interface says. */
  long[] cpuMs();

  /** The row's figures for the JSON report, in order. */
  Map<String, Object> figures();

  /** Each instance's CPU ms, joined with {@code /}. */
  default String instancesCpu() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < instances(); i++) {
      sb.append(i == 0 ? "" : "/").append(cpuMs()[i]);
    }
    return sb.toString();
  }

  /** PostgreSQL's CPU ms. */
  default long postgresCpu() {
    return cpuMs()[instances()];
  }

  /** The Kafka broker process's (0 for a given cluster) CPU ms. */
  default long kafkaCpu() {
    return cpuMs()[instances() + 1];
  }

  /** This JVM's CPU ms. */
  default long benchCpu() {
    return cpuMs()[instances() + 2];
  }

  /** The machine's busy CPU ms. */
  default long machineCpu() {
    return cpuMs()[instances() + 3];
  }

  /** The machine's busy CPU that none of the measured processes used (other work on it). */
  default long otherCpu() {
    long ours = 0;
    for (int i = 0; i < instances() + 3; i++) {
      ours += cpuMs()[i];
    }
    return Math.max(0, machineCpu() - ours);
  }

  /** The machine's busy share during the drain: busy CPU ms / (drain ms × cores). */
  default double machineBusy(int cores) {
    return machineCpu() / (drainMs() * cores);
  }

  /**
   * The figures every scale-out row reports, in order: instances, throughput and drain, then {@code
   * own} (the benchmark's), then latency and CPU ({@code cpu_ms_<instancesName>}, then the other
   * processes').
   */
  default Map<String, Object> figures(Map<String, Object> own, String instancesName) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("instances", instances());
    f.put("per_s", Math.round(perSec()));
    f.put("drain_ms", Math.round(drainMs()));
    f.putAll(own);
    f.put("p50_ms", String.format(Locale.ROOT, "%.1f", p50Ms()));
    f.put("p99_ms", String.format(Locale.ROOT, "%.1f", p99Ms()));
    f.put("cpu_ms_" + instancesName, "\"" + instancesCpu() + "\"");
    f.put("cpu_ms_postgres", postgresCpu());
    f.put("cpu_ms_kafka", kafkaCpu());
    f.put("cpu_ms_bench", benchCpu());
    f.put("cpu_ms_machine", machineCpu());
    return f;
  }

  /** Throughput of {@code row} over that of the first count measured. */
  static double speedup(List<? extends ScaleOutRow> rows, ScaleOutRow row) {
    return row.perSec() / rows.get(0).perSec();
  }

  /**
   * The JSON report: {@code header} (the run's figures, an open object without a trailing comma)
   * and then the rows, each with its speedup and machine busy share.
   */
  static String json(StringBuilder header, List<? extends ScaleOutRow> rows, int cores) {
    header.append(", \"rows\": [");
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Object> f = rows.get(i).figures();
      f.put("speedup", String.format(Locale.ROOT, "%.2f", speedup(rows, rows.get(i))));
      f.put("machine_busy", String.format(Locale.ROOT, "%.2f", rows.get(i).machineBusy(cores)));
      header.append(i == 0 ? "" : ", ").append(BenchOutput.json(f));
    }
    return header.append("]}").toString();
  }

  /** CPU ms so far of the instances, PostgreSQL, the Kafka broker (may be null), this JVM. */
  static long[] sampleCpu(
      List<JvmProcess> instances, long backendPid, KafkaBrokerProcess kafkaProcess) {
    long[] out = new long[instances.size() + 4];
    for (int i = 0; i < instances.size(); i++) {
      out[i] = ProcessCpu.millis(instances.get(i).pid());
    }
    out[instances.size()] = ProcessCpu.postgresServerMillis(backendPid);
    out[instances.size() + 1] = kafkaProcess == null ? 0 : ProcessCpu.millis(kafkaProcess.pid());
    out[instances.size() + 2] = ProcessCpu.millis(ProcessHandle.current().pid());
    out[instances.size() + 3] = ProcessCpu.machineBusyMillis();
    return out;
  }

  /** The CPU ms spent between two samples. */
  static long[] cpuBetween(long[] before, long[] after) {
    long[] spent = new long[after.length];
    for (int i = 0; i < after.length; i++) {
      spent[i] = after[i] - before[i];
    }
    return spent;
  }
}
