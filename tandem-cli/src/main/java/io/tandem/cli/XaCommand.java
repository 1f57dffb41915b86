package io.tandem.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.xa.DecisionRecord;
import io.tandem.xa.GlobalTransactionId;
import io.tandem.xa.ParticipantStatus;
import io.tandem.xa.PreparedBranch;
import io.tandem.xa.RecoveryReport;
import io.tandem.xa.Resolution;
import io.tandem.xa.XaDecision;
import io.tandem.xa.XaOperations;
import io.tandem.xa.XaStatus;
import java.io.Console;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tandem xa}: the operator's view of two-phase commit ({@link XaOperations}): what is in
 * doubt, resolving one transaction by hand, recovering for a node that is gone.
 */
@Command(
    name = "xa",
    mixinStandardHelpOptions = true,
    header = "Lists in-doubt two-phase branches, resolves one by hand, recovers a dead node's.",
    description = {
      "Reads the participants (--participant NAME=JDBC_URL, as the coordinator names them) and",
      "the coordinator's decision log (--jdbc-url). Safe while coordinators run."
    },
    subcommands = {XaCommand.Status.class, XaCommand.Resolve.class, XaCommand.Recover.class})
final class XaCommand extends CommandGroup {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Asks the operator; tests replace it. */
  interface Terminal {
    /** The operator's answer to {@code question}, or null when there is no terminal. */
    String ask(String question);
  }

  static Terminal terminal =
      question -> {
        Console console = System.console();
        return console == null ? null : console.readLine("%s", question);
      };

  /** {@code tandem xa status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      header = "Lists every prepared branch on the participants, Tandem's and foreign.",
      description = {
        "Each prepared branch with its age, owner (coordinator node, or foreign), the decision",
        "the log holds (none: presumed abort), the locks it holds and the sessions it blocks",
        "where the database tells. Exit status 0; the listing is the answer."
      })
  static final class Status implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;
    @Mixin XaParticipants participants;

    @Option(names = "--json", description = "One JSON object instead of the table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      XaStatus status = withOperations(database, participants, XaOperations::status);
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(JSON.writeValueAsString(XaStatusJson.of(status)));
      } else {
        render(status, out);
      }
      out.flush();
      return 0;
    }

    private static void render(XaStatus s, PrintWriter out) {
      String format = "%-12s %-60s %-12s %9s %-9s %7s  %s%n";
      out.printf(
          Locale.ROOT, format, "participant", "xid", "owner", "age", "decision", "blocks", "locks");
      for (PreparedBranch b : s.branches()) {
        out.printf(
            Locale.ROOT,
            format,
            b.participant(),
            b.xid(),
            b.node().orElse("foreign"),
            b.age(s.at()).map(CliText::age).orElse("?"),
            b.foreign() ? "-" : b.decision().map(Enum::name).orElse("none"),
            b.blockedSessions() < 0 ? "?" : Integer.toString(b.blockedSessions()),
            b.locks().isEmpty() ? "" : String.join(", ", b.locks()));
      }
      int n = s.tandemBranches().size();
      out.println(
          n
              + (n == 1 ? " prepared branch" : " prepared branches")
              + " of Tandem's, "
              + (s.branches().size() - s.tandemBranches().size())
              + " foreign (never touched by Tandem)"
              + s.oldestInDoubt().map(d -> "; oldest " + CliText.age(d)).orElse(""));
      for (ParticipantStatus p : s.participants()) {
        p.error().ifPresent(e -> out.println("participant " + p.name() + ": NOT LISTED: " + e));
        p.note().ifPresent(note -> out.println("participant " + p.name() + ": " + note));
      }
      for (DecisionRecord d : s.heuristics()) {
        out.println("HEURISTIC " + d.global() + " (" + d.decision() + "): " + d.heuristic().get());
      }
    }
  }

  /** {@code tandem xa resolve}. */
  @Command(
      name = "resolve",
      mixinStandardHelpOptions = true,
      header = "Commits or rolls back one in-doubt transaction by hand, recorded.",
      description = {
        "Commits or rolls back every prepared branch of the transaction XID (NODE/UUID, as",
        "tandem xa status shows it) on the participants, after recording the decision in the",
        "log, so that the coordinator's own recovery finishes the same way any branch on a",
        "participant not given here. The resolution is recorded in tandem_xa_resolution.",
        "Asks for confirmation on a terminal; --yes confirms for scripts. Refuses to go against",
        "a decision the log holds unless --force (a heuristic decision, noted on the record).",
        "Foreign prepared transactions are never touched: finish those with COMMIT PREPARED or",
        "XA COMMIT yourself."
      })
  static final class Resolve implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;
    @Mixin XaParticipants participants;

    @Parameters(paramLabel = "XID", description = "The transaction, NODE/UUID.")
    String xid;

    @ArgGroup(multiplicity = "1")
    Action action;

    static final class Action {
      @Option(names = "--commit", required = true, description = "Commit every branch.")
      boolean commit;

      @Option(names = "--rollback", required = true, description = "Roll back every branch.")
      boolean rollback;
    }

    @Option(names = "--yes", description = "Do not ask: the command line is the confirmation.")
    boolean yes;

    @Option(
        names = "--force",
        description = "Go against the decision the log holds (a heuristic decision).")
    boolean force;

    @Option(names = "--reason", description = "Why, recorded with the resolution.")
    String reason;

    @Option(
        names = "--operator",
        defaultValue = "${env:USER}",
        description = "Who resolves, recorded (default: $USER, else the system's user name).")
    String operator;

    @Override
    public Integer call() throws Exception {
      GlobalTransactionId id = GlobalTransactionId.parse(xid);
      XaDecision decision = action.commit ? XaDecision.COMMIT : XaDecision.ROLLBACK;
      String who =
          operator != null && !operator.isBlank() ? operator : System.getProperty("user.name");
      if (!yes) {
        String answer =
            terminal.ask(
                decision.name().toLowerCase(Locale.ROOT)
                    + " every prepared branch of "
                    + id
                    + " on "
                    + participants.participants.keySet()
                    + "? [y/N] ");
        if (answer == null) {
          throw new IllegalArgumentException(
              "not on a terminal, so nobody can confirm: pass --yes to resolve " + id);
        }
        if (!answer.trim().toLowerCase(Locale.ROOT).startsWith("y")) {
          spec.commandLine().getOut().println("nothing done");
          spec.commandLine().getOut().flush();
          return 1;
        }
      }
      Resolution r;
      try {
        r =
            withOperations(
                database, participants, ops -> ops.resolve(id, decision, who, reason, force));
      } catch (IllegalStateException refused) {
        throw new IllegalArgumentException(refused.getMessage(), refused);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          Locale.ROOT,
          "%s %s (the log held %s); recorded as resolved by %s%n",
          decision == XaDecision.COMMIT ? "committed" : "rolled back",
          id,
          r.loggedBefore().map(Enum::name).orElse("no decision"),
          who);
      r.branches().forEach((p, outcome) -> out.printf(Locale.ROOT, "  %-12s %s%n", p, outcome));
      out.flush();
      return r.complete() ? 0 : 3;
    }
  }

  /** {@code tandem xa recover}. */
  @Command(
      name = "recover",
      mixinStandardHelpOptions = true,
      header = "Runs recovery for a coordinator node that is gone.",
      description = {
        "One recovery pass for --node, as its coordinator would run it at start: commits the",
        "branches the log decided to commit, rolls back undecided ones older than",
        "--presume-abort-after. Only for a node that no longer runs."
      })
  static final class Recover implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin DatabaseOptions database;
    @Mixin XaParticipants participants;

    @Option(names = "--node", required = true, description = "The coordinator's node id.")
    String node;

    @Option(
        names = "--presume-abort-after",
        defaultValue = "60s",
        converter = DurationConverter.class,
        description = "Leave undecided branches younger than this (default ${DEFAULT-VALUE}).")
    Duration presumeAbortAfter;

    @Override
    public Integer call() throws Exception {
      GlobalTransactionId.checkNodeId(node, "--node");
      if (presumeAbortAfter.isNegative() || presumeAbortAfter.isZero()) {
        throw new IllegalArgumentException(
            "--presume-abort-after must be positive, was " + presumeAbortAfter);
      }
      RecoveryReport r =
          withOperations(database, participants, ops -> ops.recover(node, presumeAbortAfter));
      PrintWriter out = spec.commandLine().getOut();
      out.println("recovery of node " + node + ": " + r);
      out.flush();
      return r.failures().isEmpty() && r.heuristics().isEmpty() ? 0 : 3;
    }
  }

  @FunctionalInterface
  private interface OperationsWork<T> {
    T run(XaOperations ops);
  }

  private static <T> T withOperations(
      DatabaseOptions database, XaParticipants participants, OperationsWork<T> work)
      throws Exception {
    var sources = participants.dataSources();
    return database.withDatabase(
        "tandem-xa",
        "tandem_xa_decision",
        ds -> {
          XaOperations.Builder b = XaOperations.builder().decisionLog(ds);
          sources.forEach(b::participant);
          try (XaOperations ops = b.build()) {
            return work.run(ops);
          } catch (io.tandem.xa.XaConfigurationException e) {
            throw new IllegalArgumentException(
                "--jdbc-url has no tandem_xa_decision table: is it the coordinator's database?"
                    + " (tandem migrate creates Tandem's schema)",
                e);
          }
        });
  }
}
