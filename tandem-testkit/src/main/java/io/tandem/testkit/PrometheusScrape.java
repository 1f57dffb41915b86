package io.tandem.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Prometheus text exposition (what {@code /metrics} answers) read back by sample name, so that a
 * metrics test checks the name a dashboard or an alert rule uses, not a Micrometer object.
 *
 * <pre>{@code
 * PrometheusScrape scrape = PrometheusScrape.parse(registry.scrape());
 * double failures = scrape.value("tandem_relay_failures_total", "error_class", "RECORD_TOO_LARGE");
 * }</pre>
 */
public final class PrometheusScrape {
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  private final String text;
  private final List<Sample> samples;

  private PrometheusScrape(String text, List<Sample> samples) {
    this.text = text;
    this.samples = samples;
  }

  /** Parses the text format (comments and blank lines skipped). */
  public static PrometheusScrape parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      line = line.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("not a Prometheus sample line: " + line);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
      }
      samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
    }
    return new PrometheusScrape(text, List.copyOf(samples));
  }

  /** Every sample, in the order of the text. */
  public List<Sample> samples() {
    return samples;
  }

  /** Whether some sample carries this name (and these label pairs). */
  public boolean has(String name, String... labels) {
    return !matching(name, labels).isEmpty();
  }

  /**
   * The sum of the samples named {@code name} whose labels include the given pairs ({@code "name",
   * "value", ...}).
   *
   * @throws AssertionError when no sample matches, quoting the names the scrape holds
   */
  public double value(String name, String... labels) {
    List<Sample> found = matching(name, labels);
    if (found.isEmpty()) {
      throw new AssertionError(
          "no sample "
              + name
              + " with labels "
              + List.of(labels)
              + " in the scrape; samples of that name: "
              + samples.stream().filter(s -> s.name().equals(name)).toList()
              + "; tandem names: "
              + samples.stream()
                  .map(Sample::name)
                  .filter(n -> n.startsWith("tandem_"))
                  .distinct()
                  .sorted()
                  .toList());
    }
    return found.stream().mapToDouble(Sample::value).sum();
  }

  private List<Sample> matching(String name, String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name, value pairs: " + List.of(labels));
    }
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(
            s -> {
              for (int i = 0; i < labels.length; i += 2) {
                if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                  return false;
                }
              }
              return true;
            })
        .toList();
  }

  @Override
  public String toString() {
    return text;
  }

  /** One sample line: name, labels, value. */
  public record Sample(String name, Map<String, String> labels, double value) {}
}
