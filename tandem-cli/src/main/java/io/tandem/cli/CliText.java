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

  /** The most rows a listing command shows at once, as the operations APIs allow. */
  static final int MAX_LIMIT = 10_000;

  /** Refuses a {@code --limit} outside 1 to {@value #MAX_LIMIT}, before anything connects. */
  static int checkLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "--limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
    return limit;
  }

  /** {@code 1 saga}, {@code 3 sagas}. */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /** The hint a listing's last line gets when it showed as many rows as {@code --limit}. */
  static String limitNote(int shown, int limit) {
    return shown == limit ? " (the limit; --limit shows more)" : "";
  }

  /**
   * Runs a library builder's {@code checkSettings} before anything connects, its refusal said with
   * the command's option names ({@link #withOptionNames}).
   */
  static void checkSettings(Runnable check, Map<String, String> optionNames) {
    try {
      check.run();
    } catch (IllegalArgumentException e) {
      throw withOptionNames(e, optionNames);
    }
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
