package io.tandem.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/**
 * Reads {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d} or ISO-8601 {@code PT30S}.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  @Override
  public Duration convert(String value) {
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
    } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
      // fall through to the error below
    }
    throw new CommandLine.TypeConversionException(
        "'" + value + "' is not a duration: use e.g. 500ms, 30s, 5m, 2h, 7d or PT30S");
  }
}
