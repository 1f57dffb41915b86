package io.tandem.core;

import java.util.regex.Pattern;

/**
 * The one place where Tandem turns an exception into text that leaves the process: a relay's status
 * and health endpoint, a quarantined row's reason. A summary is one line: the exception's class and
 * a short message, with its root cause when that is a different exception; URLs and {@code
 * password=...}-like values are removed ({@link Redaction}), since driver and broker messages may
 * carry them.
 *
 * <pre>{@code
 * ErrorSummary.of(e)  // "JdbcException: reading due outbox events failed
 *                     //  (cause PSQLException: Connection to 127.0.0.1:5432 refused.)"
 * }</pre>
 *
 * <p>Logs keep the full exception; a summary is for what other people and programs read.
 * Thread-safe.
 */
public final class ErrorSummary {
  /** The longest summary, in characters; longer ones end with "...". */
  public static final int MAX_LENGTH = 300;

  private static final int MAX_MESSAGE = 160;
  // scheme://anything up to white space or a closing delimiter, with an optional "jdbc:" prefix
  private static final Pattern URL =
      Pattern.compile("(?:jdbc:)?[A-Za-z][A-Za-z0-9+.-]*://[^\\s'\"<>()\\[\\],;]*");

  private ErrorSummary() {}

  /** One line naming {@code error}'s class and message (and its root cause's), without secrets. */
  public static String of(Throwable error) {
    if (error == null) {
      return null;
    }
    StringBuilder summary = new StringBuilder(describe(error));
    Throwable root = error;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != error) {
      String rootMessage = root.getMessage();
      boolean repeated =
          rootMessage != null && String.valueOf(error.getMessage()).contains(rootMessage.strip());
      // A wrapper that quotes its cause's message already: name the cause's class only.
      summary
          .append(" (cause ")
          .append(repeated ? root.getClass().getSimpleName() : describe(root))
          .append(')');
    }
    return shorten(summary.toString(), MAX_LENGTH);
  }

  private static String describe(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return t.getClass().getSimpleName() + ": " + shorten(clean(message), MAX_MESSAGE);
  }

  /**
   * The message's first line with URLs and secret values replaced. This is the single call site for
   * credential redaction of error text that leaves the process.
   */
  private static String clean(String message) {
    String line = message.strip();
    int newline = line.indexOf('\n');
    if (newline >= 0) {
      line = line.substring(0, newline).strip();
    }
    // Redaction first: a password holding a delimiter of URL would otherwise survive it.
    line = Redaction.redact(line);
    return URL.matcher(line).replaceAll("<url>");
  }

  private static String shorten(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 3) + "...";
  }
}
