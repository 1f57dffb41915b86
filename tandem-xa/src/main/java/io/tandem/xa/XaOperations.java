package io.tandem.xa;

import io.tandem.xa.internal.DecisionLog;
import io.tandem.xa.internal.ListedBranch;
import io.tandem.xa.internal.Listing;
import io.tandem.xa.internal.Participant;
import io.tandem.xa.internal.Recovery;
import io.tandem.xa.internal.TandemXid;
import io.tandem.xa.internal.XaCounters;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import javax.transaction.xa.XAException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's view of two-phase commit, without a running coordinator: every prepared branch on
 * the participants with its age, owner, decision and locks ({@link #status()}); resolving one
 * transaction by hand, recorded ({@link #resolve}); a recovery pass for a coordinator node that is
 * gone ({@link #recover}). {@code tandem xa status|resolve|recover} are thin views of it.
 *
 * <pre>{@code
 * try (XaOperations ops = XaOperations.builder()
 *     .decisionLog(coordinatorDataSource)
 *     .participant("accounts", pgXaDataSource)
 *     .participant("ledger", mariaDbDataSource)
 *     .build()) {
 *   XaStatus status = ops.status();
 * }
 * }</pre>
 *
 * <p>Thread-safe. It opens one connection per participant at a time.
 */
public final class XaOperations implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(XaOperations.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final DecisionLog decisionLog;
  private final Map<String, Participant> participants;
  private final Clock clock;

  private XaOperations(Builder b) {
    this.decisionLog = DecisionLog.open(b.decisionLog);
    Map<String, Participant> map = new LinkedHashMap<>();
    b.participants.forEach((name, source) -> map.put(name, new Participant(name, source, 2)));
    this.participants = map;
    this.clock = b.clock;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Every participant's prepared branches, Tandem's and foreign, and the decision log. */
  public XaStatus status() {
    List<DecisionRecord> decisions = decisionLog.list(null);
    Map<GlobalTransactionId, XaDecision> byId = new LinkedHashMap<>();
    decisions.forEach(d -> byId.put(d.global(), d.decision()));
    List<PreparedBranch> branches = new ArrayList<>();
    List<ParticipantStatus> answers = new ArrayList<>();
    for (Participant p : participants.values()) {
      try {
        String[] described = new String[1];
        Listing listing =
            p.withConnection(
                TIMEOUT,
                (c, r) -> {
                  described[0] = p.dialect().describe(c);
                  return p.dialect().listPrepared(c);
                });
        for (ListedBranch b : listing.branches()) {
          Optional<GlobalTransactionId> global = b.tandem().map(TandemXid::global);
          branches.add(
              new PreparedBranch(
                  p.name(),
                  b.xidText(),
                  global,
                  b.preparedAt(),
                  b.owner(),
                  global.map(byId::get),
                  b.locks(),
                  b.blocked()));
        }
        answers.add(
            new ParticipantStatus(
                p.name(), Optional.of(described[0]), Optional.empty(), listing.note()));
      } catch (SQLException | RuntimeException e) {
        answers.add(
            new ParticipantStatus(
                p.name(),
                Optional.empty(),
                Optional.of(String.valueOf(e.getMessage())),
                Optional.empty()));
      }
    }
    return new XaStatus(clock.instant(), branches, answers, decisions);
  }

  /**
   * Commits or rolls back every prepared branch of {@code transaction} on the participants, after
   * recording the decision in the log (so that the owning coordinator's recovery finishes any
   * branch on a participant not given here the same way), and records the resolution in {@code
   * tandem_xa_resolution}.
   *
   * @param operator who decided (recorded)
   * @param reason why (recorded; may be null)
   * @param force go against a decision the log already holds: a heuristic decision, noted on the
   *     decision record
   * @throws IllegalArgumentException when no participant has a prepared branch of it
   * @throws IllegalStateException when the log holds the other decision and {@code force} is false
   */
  public Resolution resolve(
      GlobalTransactionId transaction,
      XaDecision action,
      String operator,
      String reason,
      boolean force) {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(action, "action");
    if (operator == null || operator.isBlank()) {
      throw new IllegalArgumentException("operator must name who resolves the transaction");
    }
    Map<String, TandemXid> prepared = new TreeMap<>();
    for (Participant p : participants.values()) {
      for (ListedBranch b : list(p)) {
        b.tandem()
            .filter(x -> x.global().equals(transaction) && x.participant().equals(p.name()))
            .ifPresent(x -> prepared.put(p.name(), x));
      }
    }
    if (prepared.isEmpty()) {
      throw new IllegalArgumentException(
          "no participant given has a prepared branch of "
              + transaction
              + " (participants: "
              + participants.keySet()
              + "); tandem xa status lists what is in doubt");
    }
    Optional<XaDecision> before = decisionLog.find(transaction).map(DecisionRecord::decision);
    XaDecision holds =
        before.orElseGet(
            () ->
                decisionLog.record(
                    transaction,
                    action,
                    List.copyOf(participants.keySet()),
                    "operator:" + operator));
    if (holds != action) {
      if (!force) {
        throw new IllegalStateException(
            "the decision log holds "
                + holds
                + " for "
                + transaction
                + ": its other branches are (or will be) "
                + (holds == XaDecision.COMMIT ? "committed" : "rolled back")
                + ", so "
                + action
                + " would split the transaction. Resolve it with the logged decision, or force"
                + " the heuristic decision (--force) if you know better");
      }
      decisionLog.noteHeuristic(
          transaction,
          "operator " + operator + " forced " + action + " against the logged " + holds);
    }
    Map<String, String> outcomes = new TreeMap<>();
    prepared.forEach(
        (name, xid) -> outcomes.put(name, finish(participants.get(name), xid, action)));
    String summary =
        String.join(
            ",", outcomes.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    decisionLog.recordResolution(
        transaction, action, before, force && holds != action, summary, operator, reason);
    log.warn(
        "operator {} resolved {} by {} (logged before: {}): {}",
        operator,
        transaction,
        action,
        before.map(Enum::name).orElse("nothing"),
        summary);
    return new Resolution(transaction, action, before, outcomes);
  }

  private List<ListedBranch> list(Participant p) {
    try {
      return p.withConnection(TIMEOUT, (c, r) -> p.dialect().listPrepared(c)).branches();
    } catch (SQLException e) {
      throw new io.tandem.jdbc.JdbcException(
          "cannot list the prepared branches of participant '" + p.name() + "'", e);
    }
  }

  private static String finish(Participant p, TandemXid xid, XaDecision action) {
    try {
      return p.withConnection(
          TIMEOUT,
          (c, resource) -> {
            try {
              if (action == XaDecision.COMMIT) {
                resource.commit(xid, false);
                return "COMMITTED";
              }
              resource.rollback(xid);
              return "ROLLED_BACK";
            } catch (XAException e) {
              if (action == XaDecision.ROLLBACK
                  && e.errorCode >= XAException.XA_RBBASE
                  && e.errorCode <= XAException.XA_RBEND) {
                return "ROLLED_BACK"; // MariaDB's answer for a branch that wrote nothing
              }
              return e.errorCode == XAException.XAER_NOTA
                  ? "no longer prepared"
                  : "failed: XA error " + e.errorCode + " " + e.getMessage();
            }
          });
    } catch (SQLException | RuntimeException e) {
      return "failed: " + e.getMessage();
    }
  }

  /**
   * One recovery pass for coordinator node {@code nodeId}, as its own coordinator would run it: for
   * a node that is gone for good. Do not run it for a node that still runs: its transactions in
   * flight would be presumed aborted once older than {@code presumeAbortAfter}.
   */
  public RecoveryReport recover(String nodeId, Duration presumeAbortAfter) {
    GlobalTransactionId.checkNodeId(nodeId, "nodeId");
    Recovery recovery =
        new Recovery(
            nodeId,
            participants,
            decisionLog,
            id -> false,
            presumeAbortAfter,
            XaSettings.DEFAULT_ROLLBACK_RECORD_RETENTION,
            clock,
            new XaCounters());
    return recovery.run();
  }

  /** When the status was read, for ages. */
  public Instant now() {
    return clock.instant();
  }

  @Override
  public void close() {
    participants.values().forEach(Participant::close);
  }

  /** Builds {@link XaOperations}. Not thread-safe. */
  public static final class Builder {
    private DataSource decisionLog;
    private final Map<String, XADataSource> participants = new LinkedHashMap<>();
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** The coordinator's database, holding the decision log (required). */
    public Builder decisionLog(DataSource dataSource) {
      this.decisionLog = Objects.requireNonNull(dataSource, "decisionLog");
      return this;
    }

    /** A participant, by the name its coordinator gives it (the xids' branch qualifier). */
    public Builder participant(String name, XADataSource dataSource) {
      TandemXid.checkParticipant(name, "participant name");
      if (participants.putIfAbsent(name, Objects.requireNonNull(dataSource, name)) != null) {
        throw new IllegalArgumentException("participant '" + name + "' is given twice");
      }
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public XaOperations build() {
      if (decisionLog == null) {
        throw new IllegalArgumentException(
            "the coordinator's database is required: decisionLog(dataSource)");
      }
      if (participants.isEmpty()) {
        throw new IllegalArgumentException("at least one participant is required");
      }
      return new XaOperations(this);
    }
  }
}
