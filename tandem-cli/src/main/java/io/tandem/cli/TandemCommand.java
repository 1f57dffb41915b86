package io.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tandem} command. Each subcommand maps its options onto a library builder. */
@Command(
    name = "tandem",
    mixinStandardHelpOptions = true,
    version = "tandem 0.1.0-SNAPSHOT",
    description = "Changes that land in more than one system: outbox, relay, inbox.",
    subcommands = {DemoCommand.class, CommandLine.HelpCommand.class})
public final class TandemCommand implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    int code = new CommandLine(new TandemCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .execute(args);
    System.exit(code);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
