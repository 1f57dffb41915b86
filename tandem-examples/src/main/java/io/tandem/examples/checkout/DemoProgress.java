package io.tandem.examples.checkout;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Where the checkout demo tells what it does: {@code [demo]} lines, and one progress line that a
 * terminal rewrites in place ({@code liveLine}) or that is printed as lines. Silent without a
 * stream.
 */
final class DemoProgress {
  private final PrintStream out;
  private final boolean liveLine;

  /**
   * @param out where progress goes (stderr in the CLI), or null for none
   * @param liveLine rewrite one progress line in place instead of printing lines
   */
  DemoProgress(PrintStream out, boolean liveLine) {
    this.out = out;
    this.liveLine = liveLine;
  }

  boolean liveLine() {
    return liveLine;
  }

  void say(String format, Object... args) {
    if (out != null) {
      out.println("[demo] " + String.format(Locale.ROOT, format, args));
      out.flush();
    }
  }

  /** Shows {@code line} as the current progress line. */
  void progress(String line) {
    if (out == null) {
      return;
    }
    if (liveLine) {
      out.print("\r" + line + "   ");
    } else {
      out.println(line);
    }
    out.flush();
  }

  /** Ends the live progress line, so that what follows prints below it. */
  void endLiveLine() {
    if (liveLine && out != null) {
      out.println();
    }
  }
}
