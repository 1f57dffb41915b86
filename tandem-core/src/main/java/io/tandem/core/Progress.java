package io.tandem.core;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Progress of a long run (a drill series, a benchmark's drain, a retention): done of total, rate
 * and time left. On a terminal it keeps one live line up to date (rewritten at most {@value
 * #LIVE_REDRAWS_PER_SECOND} times a second); elsewhere (a log file, CI) it prints a plain line
 * every {@code plainEvery} and when done, so a log shows the run moving without a line per item.
 *
 * <pre>{@code
 * try (Progress p = Progress.start("retention", rowsToDelete, System.err)) {
 *   for (...) { deleteBatch(); p.advance(batch); }
 * } // prints the final line: "retention: 120000/120000 (100%) in 12.0 s, 10000/s"
 * }</pre>
 *
 * <p>{@link #log} prints a message without breaking the live line. {@code TANDEM_PROGRESS=plain}
 * forces plain lines on a terminal, {@code =live} a live line elsewhere. A total of 0 or less means
 * unknown: no percentage or time left. Thread-safe.
 */
public final class Progress implements AutoCloseable {
  /** Redraws of the live line per second, at most. */
  public static final int LIVE_REDRAWS_PER_SECOND = 10;

  /** Default seconds between plain lines. */
  public static final long DEFAULT_PLAIN_EVERY_SECONDS = 10;

  /** Default interval between plain lines. */
  public static final Duration DEFAULT_PLAIN_EVERY =
      Duration.ofSeconds(DEFAULT_PLAIN_EVERY_SECONDS);

  private final String label;
  private final long total;
  private final PrintStream out;
  private final boolean live;
  private final long plainEveryNanos;
  private final LongSupplier nanos;
  private final long startNanos;
  private long done;
  private long lastPrintNanos;
  private int liveWidth;
  private boolean closed;

  private Progress(
      String label,
      long total,
      PrintStream out,
      boolean live,
      Duration plainEvery,
      LongSupplier nanos) {
    this.label = Objects.requireNonNull(label, "label");
    this.total = total;
    this.out = Objects.requireNonNull(out, "out");
    this.live = live;
    if (plainEvery == null || plainEvery.isNegative() || plainEvery.isZero()) {
      throw new IllegalArgumentException("plainEvery must be positive, was " + plainEvery);
    }
    this.plainEveryNanos = plainEvery.toNanos();
    this.nanos = nanos;
    this.startNanos = nanos.getAsLong();
    this.lastPrintNanos = startNanos;
  }

  /**
   * Starts reporting to {@code out}: a live line when this process has a terminal (or {@code
   * TANDEM_PROGRESS=live}), plain lines every {@value #DEFAULT_PLAIN_EVERY_SECONDS} s otherwise.
   */
  public static Progress start(String label, long total, PrintStream out) {
    String mode = System.getenv("TANDEM_PROGRESS");
    boolean live =
        "live".equalsIgnoreCase(mode)
            || (System.console() != null && !"plain".equalsIgnoreCase(mode));
    return start(label, total, out, live, DEFAULT_PLAIN_EVERY, System::nanoTime);
  }

  /** Starts reporting in the given mode, with a clock for tests ({@link System#nanoTime()}). */
  public static Progress start(
      String label,
      long total,
      PrintStream out,
      boolean live,
      Duration plainEvery,
      LongSupplier nanos) {
    return new Progress(label, total, out, live, plainEvery, nanos);
  }

  /** Counts {@code n} more items done. */
  public synchronized void advance(long n) {
    update(done + n);
  }

  /** Sets how many items are done (for a caller that reads a running count). */
  public synchronized void update(long doneNow) {
    if (closed) {
      return;
    }
    done = doneNow;
    long now = nanos.getAsLong();
    if (live) {
      if (now - lastPrintNanos >= 1_000_000_000L / LIVE_REDRAWS_PER_SECOND) {
        redraw(now);
      }
    } else if (now - lastPrintNanos >= plainEveryNanos) {
      out.println(line(now));
      out.flush();
      lastPrintNanos = now;
    }
  }

  /** Prints a message on a line of its own; the live line comes back under it. */
  public synchronized void log(String message) {
    if (live && liveWidth > 0) {
      out.print("\r" + " ".repeat(liveWidth) + "\r");
      liveWidth = 0;
    }
    out.println(message);
    if (live && !closed) {
      redraw(nanos.getAsLong());
    }
    out.flush();
  }

  /** The current line: {@code label: done/total (p%) r/s, about t left}. */
  public synchronized String line() {
    return line(nanos.getAsLong());
  }

  private String line(long now) {
    double seconds = Math.max(1e-9, (now - startNanos) / 1e9);
    double rate = done / seconds;
    StringBuilder b = new StringBuilder(label).append(": ").append(done);
    if (total > 0) {
      b.append('/').append(total);
      b.append(String.format(Locale.ROOT, " (%d%%)", Math.min(100, done * 100 / total)));
    }
    if (closed) {
      b.append(String.format(Locale.ROOT, " in %.1f s", seconds));
    }
    b.append(String.format(Locale.ROOT, ", %s/s", rate(rate)));
    if (!closed && total > 0 && done < total) {
      b.append(
          done == 0 ? ", time left unknown" : ", about " + left((total - done) / rate) + " left");
    }
    return b.toString();
  }

  private static String rate(double perSecond) {
    return perSecond >= 100
        ? String.format(Locale.ROOT, "%.0f", perSecond)
        : String.format(Locale.ROOT, "%.2f", perSecond);
  }

  private static String left(double seconds) {
    long s = Math.round(seconds);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%d h %02d min", s / 3600, (s % 3600) / 60);
  }

  private void redraw(long now) {
    String text = line(now);
    int pad = Math.max(0, liveWidth - text.length());
    out.print("\r" + text + " ".repeat(pad));
    out.flush();
    liveWidth = text.length();
    lastPrintNanos = now;
  }

  /** Prints the final line (on a terminal: ends the live line). Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    long now = nanos.getAsLong();
    if (live) {
      redraw(now);
      out.println();
    } else {
      out.println(line(now));
    }
    out.flush();
  }
}
