package io.tandem.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/**
 * Reads {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d} or ISO-8601 {@code PT30S},
 * at most {@link #MAX} (36500 days, a hundred years): a longer one is a typo, and one past {@code
 * Duration}'s range would overflow in the date arithmetic the commands do with it.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  static final Duration MAX = Duration.ofDays(36_500);

  @Override
  public Duration convert(String value) {
    Duration d = parse(value);
    if (d.compareTo(MAX) > 0 || d.compareTo(MAX.negated()) < 0) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is longer than the longest duration accepted, 36500d (100 years)");
    }
    return d;
  }

  private static Duration parse(String value) {
    String v = value.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (v.startsWith("pt") || v.startsWith("p")) {
        return Duration.parse(value.trim().toUpperCase(java.util.Locale.ROOT));
      }
      if (v.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      switch (v.charAt(v.length() - 1)) {
        case 's':
          return Duration.ofSeconds(n);
        case 'm':
          return Duration.ofMinutes(n);
        case 'h':
          return Duration.ofHours(n);
        case 'd':
          return Duration.ofDays(n);
        default:
          break;
      }
    } catch (ArithmeticException e) {
      // beyond Duration's range: certainly beyond MAX
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is longer than the longest duration accepted, 36500d (100 years)");
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      // fall through to the error below
    }
    throw new CommandLine.TypeConversionException(
        "'" + value + "' is not a duration: use e.g. 500ms, 30s, 5m, 2h, 7d or PT30S");
  }
}
