package io.tandem.cli;

import java.time.Duration;
import java.util.Map;

/** Small text helpers the commands share. */
final class CliText {
  private CliText() {}

  /** {@code text} on one line, cut to {@code max} characters with "..." when longer. */
  static String shorten(String text, int max) {
    String one = text.replace('\n', ' ').replace('\r', ' ');
    return one.length() <= max ? one : one.substring(0, max - 3) + "...";
  }

  /** A duration for people: milliseconds below 10 s, seconds below 10 min, then minutes. */
  static String age(Duration d) {
    long ms = d.toMillis();
    if (ms < 10_000) {
      return ms + " ms";
    }
    if (ms < 600_000) {
      return ms / 1000 + " s";
    }
    return ms / 60_000 + " min";
  }

  /**
   * A library builder's refusal said with the command's option names: each builder setting named in
   * {@code e}'s message (a whole word) is replaced by its option.
   */
  static IllegalArgumentException withOptionNames(
      IllegalArgumentException e, Map<String, String> optionNames) {
    String message = e.getMessage();
    for (Map.Entry<String, String> option : optionNames.entrySet()) {
      message = message.replaceAll("\\b" + option.getKey() + "\\b", option.getValue());
    }
    return new IllegalArgumentException(message, e);
  }
}
