package io.tandem.cli;

import picocli.CommandLine.Option;

/** The options every {@code tandem bench} subcommand shares, as picocli mixins. */
final class BenchOptions {
  private BenchOptions() {}

  /** {@code --json}: the report as one JSON object instead of a table. */
  static final class Output {
    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    /** The report as the reader asked for it, ending with a line break. */
    String render(String json, String table) {
      return this.json ? json + System.lineSeparator() : table;
    }
  }

  /** {@code --jdbc-url}: the PostgreSQL server the benchmark makes its databases on. */
  static final class Postgres {
    @Option(
        names = "--jdbc-url",
        defaultValue = "${env:TANDEM_JDBC_URL}",
        description =
            "PostgreSQL server (default: TANDEM_JDBC_URL, else an embedded one with fsync on);"
                + " the benchmark creates and drops its own databases.")
    String jdbcUrl;

    /** The given URL, or null for an embedded server. */
    String urlOrNull() {
      return jdbcUrl == null || jdbcUrl.isBlank() ? null : jdbcUrl;
    }
  }
}
