package io.tandem.drill;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The coordinator processes of {@code coordinator-crash} ({@link XaDrillMain}): starting one, and
 * reading from its output which transfers it began and saw committed.
 */
final class XaCoordinators {
  static final Duration PRESUME_ABORT_AFTER = Duration.ofSeconds(5);

  private XaCoordinators() {}

  static JvmProcess process(
      Path dir,
      IsolatedDatabase pg,
      IsolatedDatabase maria,
      String node,
      String name,
      int transfers,
      String faults)
      throws InterruptedException {
    JvmProcess p =
        JvmProcess.start(
            dir,
            name,
            Faults.jvmOptions(faults),
            XaDrillMain.class.getName(),
            JvmProcess.arguments()
                .secret("TANDEM_DRILL_POSTGRES_URL", pg.jdbcUrl())
                .secret("TANDEM_DRILL_MARIADB_URL", maria.jdbcUrl())
                .add(node, Integer.toString(transfers))
                .add(Long.toString(PRESUME_ABORT_AFTER.toMillis())));
    p.awaitOutput(XaDrillMain.READY, Scenario.START);
    return p;
  }

  static List<String> lines(String output, String prefix) {
    List<String> ids = new ArrayList<>();
    for (String line : output.split("\n")) {
      if (line.startsWith(prefix)) {
        ids.add(line.substring(prefix.length()).trim());
      }
    }
    return ids;
  }

  static String lastBegun(String output) {
    List<String> begun = lines(output, XaDrillMain.BEGIN);
    List<String> done = lines(output, XaDrillMain.COMMITTED);
    return begun.isEmpty() || done.contains(begun.get(begun.size() - 1))
        ? null
        : begun.get(begun.size() - 1);
  }
}
