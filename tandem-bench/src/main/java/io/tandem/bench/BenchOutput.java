package io.tandem.bench;

import java.util.Locale;
import java.util.Map;

/** Prints a benchmark's figures, in their order, as one JSON object or as a two-column table. */
final class BenchOutput {
  private BenchOutput() {}

  /** Values are already JSON literals (numbers, quoted strings, null). */
  static String json(Map<String, Object> figures) {
    StringBuilder sb = new StringBuilder("{");
    figures.forEach(
        (k, v) -> {
          if (sb.length() > 1) {
            sb.append(", ");
          }
          sb.append('"').append(k).append("\": ").append(v);
        });
    return sb.append('}').toString();
  }

  static String table(Map<String, Object> figures, int width) {
    StringBuilder sb = new StringBuilder();
    figures.forEach((k, v) -> sb.append(String.format(Locale.ROOT, "%-" + width + "s %s%n", k, v)));
    return sb.toString();
  }
}
