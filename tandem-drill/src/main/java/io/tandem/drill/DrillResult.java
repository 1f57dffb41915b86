package io.tandem.drill;

import java.util.List;
import java.util.Locale;

/**
 * The outcome of one drill, read back by its checker.
 *
 * @param detail what happened and, for a failure, why — one line each
 */
public record DrillResult(
    String name,
    Verdict result,
    long committed,
    long published,
    long delivered,
    long duplicatesDelivered,
    long duplicateSideEffects,
    long lost,
    long orderViolations,
    long recoveryMs,
    List<String> detail) {

  /** PASS, FAIL, or NOT_AVAILABLE when this build cannot run the drill (never a pass). */
  public enum Verdict {
    PASS,
    FAIL,
    NOT_AVAILABLE
  }

  public DrillResult {
    detail = List.copyOf(detail);
  }

  static DrillResult notAvailable(String name, String why) {
    return new DrillResult(name, Verdict.NOT_AVAILABLE, 0, 0, 0, 0, 0, 0, 0, 0, List.of(why));
  }

  static DrillResult failed(String name, String why) {
    return new DrillResult(name, Verdict.FAIL, 0, 0, 0, 0, 0, 0, 0, 0, List.of(why));
  }

  public boolean passed() {
    return result == Verdict.PASS;
  }

  /** One JSON object with the keys of {@code tandem drill --json}. */
  public String toJson() {
    StringBuilder b = new StringBuilder("{");
    b.append("\"name\":").append(quote(name));
    b.append(",\"result\":").append(quote(result.name()));
    b.append(",\"committed\":").append(committed);
    b.append(",\"published\":").append(published);
    b.append(",\"delivered\":").append(delivered);
    b.append(",\"duplicates_delivered\":").append(duplicatesDelivered);
    b.append(",\"duplicate_side_effects\":").append(duplicateSideEffects);
    b.append(",\"lost\":").append(lost);
    b.append(",\"order_violations\":").append(orderViolations);
    b.append(",\"recovery_ms\":").append(recoveryMs);
    b.append(",\"detail\":[");
    for (int i = 0; i < detail.size(); i++) {
      b.append(i == 0 ? "" : ",").append(quote(detail.get(i)));
    }
    return b.append("]}").toString();
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
