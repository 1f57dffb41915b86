package io.tandem.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs {@code tandem} in this JVM as {@link TandemCommand#main} would, capturing its output. */
record Cli(int status, String out, String err) {
  static Cli run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        TandemCommand.commandLine()
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new Cli(status, out.toString(), err.toString());
  }
}
