package io.tandem.drill;

/** How a drill describes its protection, and the consumer's arguments without it. */
final class Protection {
  static final String INBOX = "the consumer applies events through its inbox";
  static final String NO_INBOX =
      "the consumer applies events without its inbox (no duplicate check)";

  private Protection() {}

  /** "protection on: {@code on}", or "protection OFF: {@code off}" without protection. */
  static String line(DrillSettings settings, String on, String off) {
    return settings.protection() ? "protection on: " + on : "protection OFF: " + off;
  }

  /**
   * The consumer role's arguments: none, or {@code --mode bypass} (no inbox) without protection.
   */
  static String[] consumerMode(DrillSettings settings) {
    return settings.protection() ? new String[0] : new String[] {"--mode", "bypass"};
  }
}
