package io.tandem.cli;

import io.tandem.core.Redaction;
import io.tandem.core.TandemException;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tandem} command. Each subcommand maps its options onto a library builder. */
@Command(
    name = "tandem",
    mixinStandardHelpOptions = true,
    version = "tandem 0.1.0-SNAPSHOT",
    description = "Changes that land in more than one system: outbox, relay, inbox, sagas, 2PC.",
    subcommands = {
      DemoCommand.class,
      MigrateCommand.class,
      RelayCommand.class,
      BenchCommand.class,
      CompareCommand.class,
      DrillCommand.class,
      SoakCommand.class,
      OutboxCommand.class,
      InboxCommand.class,
      SagaCommand.class,
      TrailCommand.class,
      XaCommand.class,
      CdcCommand.class,
      DashboardCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TandemCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line as {@link #main} runs it (tests set its output and error writers). */
  static CommandLine commandLine() {
    return new CommandLine(new TandemCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(TandemCommand::report)
        .setParameterExceptionHandler(TandemCommand::reportBadInput);
  }

  /**
   * Bad input and Tandem's own errors are reported as one line, exit status 2; anything else is a
   * bug and shows its stack trace. {@code TANDEM_DEBUG=1} shows the trace for everything.
   */
  private static int report(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    boolean expected = e instanceof IllegalArgumentException || e instanceof TandemException;
    if (!expected || System.getenv("TANDEM_DEBUG") != null) {
      // A driver's message deep in the trace may quote a URL: every line goes through Redaction.
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      cmd.getErr().print(Redaction.redact(trace.toString()));
    }
    cmd.getErr()
        .println(cmd.getCommandSpec().qualifiedName() + ": " + Redaction.redact(e.getMessage()));
    return expected ? 2 : 1;
  }

  /**
   * picocli's report of a bad option, whose message quotes the value given, redacted: {@code
   * --jdbc-url} with a typo must not print the password it holds.
   */
  private static int reportBadInput(CommandLine.ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    cmd.getErr().println(Redaction.redact(e.getMessage()));
    if (!CommandLine.UnmatchedArgumentException.printSuggestions(e, cmd.getErr())) {
      cmd.usage(cmd.getErr());
    }
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
