package io.tandem.examples;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One thing a demo checked after its run, said in plain words ("money conserved: ..."), and whether
 * it held. Demos read what they check back from the services' databases, never from the services'
 * memory.
 *
 * @param statement what was checked, as a sentence a reader of the demo's output understands
 * @param held whether it held
 */
public record Check(String statement, boolean held) {

  /** The checks as lines: {@code " ok money conserved: ..."}, one per check. */
  public static String render(List<Check> checks) {
    StringBuilder sb = new StringBuilder();
    for (Check c : checks) {
      sb.append(c.held ? "  ok      " : "  FAILED  ").append(c.statement).append('\n');
    }
    return sb.toString();
  }

  /** True when every check held (and there was at least one). */
  public static boolean allHeld(List<Check> checks) {
    return !checks.isEmpty() && checks.stream().allMatch(Check::held);
  }

  /** The checks as JSON-ready maps: {@code {"check": "...", "held": true}}. */
  public static List<Map<String, Object>> asJson(List<Check> checks) {
    return checks.stream()
        .map(
            c -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("check", c.statement);
              m.put("held", c.held);
              return m;
            })
        .toList();
  }
}
