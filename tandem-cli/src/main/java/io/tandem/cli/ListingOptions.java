package io.tandem.cli;

import picocli.CommandLine.Option;

/** The options of a command that lists rows: {@code --limit} (default 100) and {@code --json}. */
final class ListingOptions {
  @Option(
      names = "--limit",
      defaultValue = "100",
      description = "At most this many (1 to 10000, default ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "One JSON object per line instead of the table.")
  boolean json;

  /** {@code --limit}, refused outside 1 to {@value CliText#MAX_LIMIT} before anything connects. */
  int checkedLimit() {
    return CliText.checkLimit(limit);
  }

  /** Whether {@code --json} was given. */
  boolean json() {
    return json;
  }
}
