package io.tandem.cli;

import picocli.CommandLine;

/** A command made of subcommands ({@code tandem outbox}, ...): run alone, it prints its usage. */
abstract class CommandGroup implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
