package io.tandem.xa;

import io.tandem.core.FaultInjector;
import io.tandem.jdbc.JdbcException;
import io.tandem.xa.internal.CoordinatorContext;
import io.tandem.xa.internal.DecisionLog;
import io.tandem.xa.internal.Participant;
import io.tandem.xa.internal.Recovery;
import io.tandem.xa.internal.TwoPhaseCommit;
import io.tandem.xa.internal.XaCounters;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import javax.sql.XADataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A two-phase commit coordinator over the drivers' XA resources: one branch per participant
 * database, the commit decision written to a table in its own database before phase 2, and recovery
 * of the branches a crash left prepared.
 *
 * <pre>{@code
 * XaCoordinator coordinator = XaCoordinator.builder()
 *     .settings(XaSettings.defaults("billing-1"))
 *     .decisionLog(coordinatorDataSource)          // Tandem's migrations applied to it
 *     .participant("accounts", pgXaDataSource)     // org.postgresql.xa.PGXADataSource
 *     .participant("ledger", mariaDbDataSource)    // org.mariadb.jdbc.MariaDbDataSource
 *     .build();
 * coordinator.start();                             // checks, then recovers what a crash left
 *
 * coordinator.inTransaction(tx -> {
 *   debit(tx.connection("accounts"), from, amount);
 *   credit(tx.connection("ledger"), to, amount);
 *   return null;
 * });
 * }</pre>
 *
 * <p>How a transaction commits: branches that wrote nothing (PostgreSQL tells) and a sole writer
 * commit in one phase, without the decision log; two or more writers are prepared in parallel, the
 * COMMIT decision is inserted into {@code tandem_xa_decision} (presumed abort: no record means roll
 * back), the first branch commits, then the others, retried for {@link
 * XaSettings#phaseTwoTimeout()} until each answered; then the record is deleted. Xids carry
 * Tandem's format id, the node id and the participant's name, so recovery only ever touches its own
 * node's branches.
 *
 * <p>{@link #start()} stops with an {@link XaConfigurationException} naming what to change when a
 * participant cannot take part (PostgreSQL's {@code max_prepared_transactions = 0}, a Galera node,
 * a user that may not list or finish prepared transactions, a MariaDB older than 10.5) or the
 * decision log's table is missing; then it runs recovery once and every {@link
 * XaSettings#recoveryInterval()} after.
 *
 * <p>Thread-safe: transactions run on the callers' threads (each its own branches); the branches of
 * one transaction prepare and commit in parallel on the coordinator's executor. {@link #close()}
 * stops recovery and closes the pooled XA connections.
 */
public final class XaCoordinator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(XaCoordinator.class);

  private final CoordinatorContext context;
  private final Recovery recovery;
  private final ExecutorService ownExecutor;
  private final ScheduledExecutorService scheduler;
  private volatile boolean started;
  private volatile boolean closed;

  private XaCoordinator(Builder b) {
    XaSettings settings = b.settings;
    Map<String, Participant> participants = new LinkedHashMap<>();
    b.participants.forEach(
        (name, source) ->
            participants.put(
                name, new Participant(name, source, settings.maxConnectionsPerParticipant())));
    this.ownExecutor =
        b.executor == null
            ? Executors.newCachedThreadPool(daemon("tandem-xa-" + settings.nodeId() + "-phase"))
            : null;
    Set<GlobalTransactionId> inFlight = ConcurrentHashMap.newKeySet();
    this.context =
        new CoordinatorContext(
            settings,
            Collections.unmodifiableMap(participants),
            DecisionLog.open(b.decisionLog),
            b.executor != null ? b.executor : ownExecutor,
            b.faults,
            b.clock,
            inFlight,
            new XaCounters());
    this.recovery =
        new Recovery(
            settings.nodeId(),
            context.participants(),
            context.decisionLog(),
            inFlight::contains,
            settings.presumeAbortAfter(),
            settings.rollbackRecordRetention(),
            b.clock,
            context.counters());
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            daemon("tandem-xa-" + settings.nodeId() + "-recovery"));
  }

  /** A builder; settings, the decision log and at least one participant are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Checks every participant and the decision log, recovers what an earlier run left in doubt, and
   * schedules recovery every {@link XaSettings#recoveryInterval()}.
   *
   * @return the first recovery's report
   * @throws XaConfigurationException listing every problem found, with what to change
   */
  public synchronized RecoveryReport start() {
    if (closed) {
      throw new IllegalStateException("this coordinator is closed");
    }
    if (started) {
      throw new IllegalStateException("this coordinator is started already");
    }
    List<String> problems = new ArrayList<>();
    for (Participant p : context.participants().values()) {
      try {
        p.withConnection(
            context.settings().connectionTimeout(),
            (Connection c, javax.transaction.xa.XAResource r) -> {
              problems.addAll(p.dialect().startupProblems(c, p.name(), p.maxConnections()));
              return null;
            });
      } catch (SQLException e) {
        throw new JdbcException("cannot check participant '" + p.name() + "'", e);
      }
    }
    if (!problems.isEmpty()) {
      throw new XaConfigurationException(problems);
    }
    RecoveryReport first = recovery.run();
    long interval = context.settings().recoveryInterval().toMillis();
    scheduler.scheduleWithFixedDelay(
        this::recoverQuietly, interval, interval, TimeUnit.MILLISECONDS);
    started = true;
    log.info(
        "XA coordinator {} started with participants {}; first recovery: {}",
        context.settings().nodeId(),
        context.participants().keySet(),
        first);
    return first;
  }

  private void recoverQuietly() {
    try {
      recovery.run();
    } catch (RuntimeException e) {
      log.warn("XA recovery of node {} failed: {}", context.settings().nodeId(), e.getMessage());
    }
  }

  /** Runs one recovery pass now (besides the scheduled ones). */
  public RecoveryReport recover() {
    return recovery.run();
  }

  /**
   * Runs {@code work} in one two-phase transaction and commits it.
   *
   * @return what {@code work} returned, once committed (or committed with a branch left to
   *     recovery: see {@link XaOutcome#COMMITTED_PENDING})
   * @throws X whatever {@code work} throws, unchanged, after every branch was rolled back
   * @throws XaRollbackException when it rolled back instead (nothing is committed)
   * @throws XaOutcomeUnknownException when whether it committed is not known yet
   * @throws XaHeuristicException when someone else decided a branch
   */
  public <T, X extends Exception> T inTransaction(XaWork<T, X> work) throws X {
    Objects.requireNonNull(work, "work");
    if (!started || closed) {
      throw new IllegalStateException(
          closed ? "this coordinator is closed" : "call start() before running transactions");
    }
    GlobalTransactionId id = GlobalTransactionId.next(context.settings().nodeId());
    context.inFlight().add(id);
    TwoPhaseCommit tx = new TwoPhaseCommit(context, id);
    T result;
    try {
      result = work.run(tx);
    } catch (Throwable t) {
      try {
        tx.rollback();
      } catch (RuntimeException e) {
        t.addSuppressed(e);
      }
      throw t;
    }
    tx.commit();
    return result;
  }

  /** The node id of this coordinator's transactions. */
  public String nodeId() {
    return context.settings().nodeId();
  }

  /** The participants' names, in the order they were configured. */
  public Set<String> participants() {
    return context.participants().keySet();
  }

  /** Transactions that ended with {@code outcome} since this coordinator was built. */
  public long count(XaOutcome outcome) {
    return context.counters().outcomes(outcome);
  }

  /** Transactions committed in one phase (at most one branch wrote). */
  public long onePhaseCommits() {
    return context.counters().onePhase();
  }

  /** Heuristic outcomes met by transactions and recovery since this coordinator was built. */
  public long heuristics() {
    return context.counters().heuristics();
  }

  /** Stops recovery and closes the pooled connections; running transactions are not waited for. */
  @Override
  public synchronized void close() {
    closed = true;
    scheduler.shutdownNow();
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
    context.participants().values().forEach(Participant::close);
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Builds an {@link XaCoordinator}. Not thread-safe.
   *
   * <p>Defaults: {@link FaultInjector#NONE}, the system clock, an executor of its own (daemon
   * threads {@code tandem-xa-NODE-phase-N}, stopped by {@link #close()}).
   */
  public static final class Builder {
    private XaSettings settings;
    private DataSource decisionLog;
    private final Map<String, XADataSource> participants = new LinkedHashMap<>();
    private ExecutorService executor;
    private FaultInjector faults = FaultInjector.NONE;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /** The coordinator's settings (required). */
    public Builder settings(XaSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * The coordinator's own database, holding {@code tandem_xa_decision} (required; Tandem's
     * migrations create it). A pooled data source is best: the decision is one insert per
     * transaction.
     */
    public Builder decisionLog(DataSource dataSource) {
      this.decisionLog = Objects.requireNonNull(dataSource, "decisionLog");
      return this;
    }

    /**
     * A participant database: its name (lower-case letters, digits, {@code _ -}, at most 32; the
     * branch qualifier of its xids, so keep it stable across restarts) and its driver's XA data
     * source.
     *
     * @throws IllegalArgumentException for a bad or repeated name
     */
    public Builder participant(String name, XADataSource dataSource) {
      io.tandem.xa.internal.TandemXid.checkParticipant(name, "participant name");
      Objects.requireNonNull(dataSource, "dataSource of participant " + name);
      if (participants.putIfAbsent(name, dataSource) != null) {
        throw new IllegalArgumentException("participant '" + name + "' is configured twice");
      }
      return this;
    }

    /** The executor for branches' parallel phase operations; not shut down by {@link #close()}. */
    public Builder executor(ExecutorService executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Fault points {@code xa.after-prepare}, {@code xa.after-decision}, {@code xa.mid-phase-two}.
     */
    public Builder faults(FaultInjector faults) {
      this.faults = Objects.requireNonNull(faults, "faults");
      return this;
    }

    /** The clock for branches' ages (tests move it). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Builds the coordinator; nothing runs until {@link XaCoordinator#start()}.
     *
     * @throws IllegalArgumentException when settings, the decision log or participants are missing
     * @throws XaConfigurationException when the decision log's table is missing
     */
    public XaCoordinator build() {
      if (settings == null) {
        throw new IllegalArgumentException("settings are required: settings(XaSettings...)");
      }
      if (decisionLog == null) {
        throw new IllegalArgumentException(
            "the decision log's data source is required: decisionLog(dataSource)");
      }
      if (participants.isEmpty()) {
        throw new IllegalArgumentException(
            "at least one participant is required: participant(name, xaDataSource)");
      }
      return new XaCoordinator(this);
    }
  }
}
