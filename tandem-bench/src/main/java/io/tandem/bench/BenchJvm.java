package io.tandem.bench;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The JIT configuration of the benchmark's JVMs. The benchmarks run with the JVM's default tiered
 * compilation; the measured windows are seconds long, and {@code TANDEM_BENCH_TRACE=1} shows the C2
 * compilers of this JVM and of the broker still compiling the long tail of warm methods in them (a
 * start-up cost that a process running for hours no longer pays; see BENCHMARKS.md). To measure
 * another configuration, give it in {@code TANDEM_JAVA_OPTS}: the child JVMs the benchmark starts
 * (the embedded broker, the relay heap probe) get the same JIT options, the broker alone can be
 * given others with {@code TANDEM_BENCH_BROKER_JAVA_OPTS}, and the report names the configuration
 * under the key {@code jit}.
 */
final class BenchJvm {
  private BenchJvm() {}

  /** This JVM's JIT options, to start child JVMs with the same ones. */
  static List<String> jitOptions() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(
            a ->
                a.startsWith("-XX:TieredStopAtLevel=")
                    || a.equals("-XX:-TieredCompilation")
                    || a.equals("-XX:+TieredCompilation")
                    || a.startsWith("-XX:CompileThresholdScaling="))
        .toList();
  }

  /**
   * Options for the embedded broker's JVM: {@code TANDEM_BENCH_BROKER_JAVA_OPTS} when set (split on
   * spaces), otherwise this JVM's JIT options.
   */
  static List<String> brokerOptions() {
    String given = System.getenv("TANDEM_BENCH_BROKER_JAVA_OPTS");
    return given == null || given.isBlank() ? jitOptions() : List.of(given.trim().split("\\s+"));
  }

  /** The JIT configuration in words, for the reports. */
  static String describe() {
    String self = describe(jitOptions());
    List<String> broker = brokerOptions();
    return broker.equals(jitOptions()) ? self : self + "; broker JVM: " + describe(broker);
  }

  private static String describe(List<String> options) {
    return options.isEmpty()
        ? "tiered C1+C2 (the JVM's default)"
        : options.contains("-XX:TieredStopAtLevel=1")
            ? "C1 only (-XX:TieredStopAtLevel=1)"
            : String.join(" ", options);
  }
}
