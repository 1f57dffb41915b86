package io.tandem.saga;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.EventLimits;
import io.tandem.core.FaultInjector;
import io.tandem.inbox.InboxProcessor;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.saga.internal.CommandWriter;
import io.tandem.saga.internal.Definitions;
import io.tandem.saga.internal.OrchestratorMeters;
import io.tandem.saga.internal.ReplyHandler;
import io.tandem.saga.internal.SagaRows;
import io.tandem.saga.internal.SagaStarter;
import io.tandem.saga.internal.SagaTimer;
import io.tandem.saga.internal.StepLog;
import io.tandem.saga.internal.TransitionWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs sagas durably in the orchestrator's own database: each step's command leaves through the
 * orchestrator's outbox, each reply comes back through its inbox, and the saga's state change and
 * the next command commit in one local transaction.
 *
 * <pre>{@code
 * SagaOrchestrator orchestrator = SagaOrchestrator.builder()
 *     .dataSource(orchestratorDb)
 *     .name("checkout-orchestrator")       // its inbox consumer name
 *     .replyTo("checkout-replies")         // aggregate type (topic) participants reply to
 *     .definition(checkout)
 *     .build();
 * UUID id = orchestrator.start("checkout", new Checkout(orderId, amount, sku, 1));
 * // run orchestrator.replyProcessor() with a ConsumerRunner on the replies' topic,
 * // an OutboxRelay on orchestratorDb, and the timer:
 * orchestrator.startTimer();
 * }</pre>
 *
 * <p>Failure handling (the definition's settings): a failure reply at or before the pivot
 * compensates the completed compensatable steps in reverse order (or all at once with {@code
 * parallelCompensation}); a retriable step's failure is retried with backoff until it succeeds; a
 * step whose reply does not come before {@code stepTimeout} is sent again (a compensatable step up
 * to {@code forwardAttempts} times, then the saga compensates, the timed-out step included, since
 * it may have been applied; the pivot and retriable steps until they answer — participants treat a
 * re-sent command as the same one); a failing compensation is retried with backoff and after {@code
 * compensationAttempts} the saga becomes {@link SagaStatus#STUCK}, visible to {@link #list} — never
 * dropped.
 *
 * <p>How it runs: the state machine is a pure function of (definition, saga row, reply or timer)
 * giving the next row and the commands to send; this class only applies it. Replies arrive in
 * batches through the batched inbox, one transaction per batch; each reply reads its saga row
 * without a lock and writes it back only if its version is unchanged — a reply that loses that race
 * is rolled back to its own savepoint and applied again alone. Deadlines and retries are {@code
 * wakeup_at} values in {@code tandem_saga}; the timer, ticking on an injected (or its own)
 * scheduler, claims a batch of due instances with {@code FOR UPDATE SKIP LOCKED} and handles them
 * in one transaction, a savepoint each. A reply that arrives after its command timed out is logged
 * and ignored. Several orchestrator instances can run at once on the same tables; when one dies,
 * the others' reply consumers and timers carry its sagas on.
 *
 * <p>The fault point {@link FaultInjector#ORCHESTRATOR_AFTER_STEP} follows every committed
 * transition: a start, a reply that moved its saga on (the inbox's {@code afterCommit} hook says
 * when it committed; not a duplicate, not a stale reply), a timer's deadline or retry. Thread-safe.
 */
public final class SagaOrchestrator implements AutoCloseable {
  public static final Duration DEFAULT_TIMER_INTERVAL = Duration.ofMillis(200);
  public static final int DEFAULT_TIMER_BATCH_SIZE = 100;

  private static final Logger LOG = LoggerFactory.getLogger(SagaOrchestrator.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final String name;
  private final String replyTo;
  private final FaultInjector faultInjector;
  private final Duration timerInterval;
  private final ScheduledExecutorService scheduler;
  private final SagaStarter starter;
  private final SagaTimer timer;
  private final InboxProcessor replies;
  private final SagaQueries queries;

  private SagaOrchestrator(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    this.name = b.name;
    this.replyTo = b.replyTo;
    this.faultInjector = b.faultInjector;
    this.timerInterval = b.timerInterval;
    this.scheduler = b.scheduler;
    Definitions definitions = new Definitions(name, b.definitions);
    SagaRows rows = new SagaRows(dialect);
    StepLog stepLog = new StepLog(dialect);
    OrchestratorMeters meters = new OrchestratorMeters(b.meterRegistry);
    CommandWriter commands =
        new CommandWriter(Outbox.create(dialect), stepLog, replyTo, b.limits, meters);
    TransitionWriter writer = new TransitionWriter(rows, commands, meters);
    this.starter = new SagaStarter(definitions, writer, b.limits, b.clock);
    this.timer =
        new SagaTimer(
            dataSource,
            dialect,
            rows,
            stepLog,
            definitions,
            writer,
            b.clock,
            b.faultInjector,
            b.timerBatchSize,
            b.afterEnd);
    ReplyHandler handler =
        new ReplyHandler(rows, stepLog, definitions, writer, b.clock, b.faultInjector, b.afterEnd);
    this.queries = new SagaQueries(dataSource, dialect, definitions.asMap(), b.clock);
    this.replies =
        InboxProcessor.builder()
            .dataSource(dataSource)
            .dialect(dialect)
            .consumer(name)
            .ordered(false) // replies carry their step and attempt; stale ones are recognised
            .onAnyEventType(Integer.MAX_VALUE, handler::onReply)
            .faultInjector(b.faultInjector)
            .afterCommit(handler::afterCommit)
            .meterRegistry(b.meterRegistry)
            .build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The aggregate type (topic) participants send replies to. */
  public String replyTo() {
    return replyTo;
  }

  /**
   * The processor for replies: run it with a {@code ConsumerRunner} on a source of the {@link
   * #replyTo()} topic (one consumer group shared by all orchestrator instances); its {@code
   * maxBatch} sets how many replies share a transaction.
   */
  public InboxProcessor replyProcessor() {
    return replies;
  }

  /** Starts a saga in its own transaction; returns its id. */
  public UUID start(String sagaType, Object data) {
    UUID id = UUID.randomUUID();
    try {
      Transactions.inTransaction(
          dataSource,
          dialect.consumerIsolation(),
          conn -> {
            starter.start(conn, id, sagaType, data);
            return null;
          });
    } catch (SQLException e) {
      throw new JdbcException("starting saga " + sagaType + " failed", e);
    }
    faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
    LOG.debug("saga {} {} started", sagaType, id);
    return id;
  }

  /**
   * Starts a saga in the caller's open transaction on {@code connection} (for instance together
   * with the business row that asked for it); nothing is sent unless the caller commits.
   */
  public UUID startIn(Connection connection, String sagaType, Object data) throws SQLException {
    UUID id = UUID.randomUUID();
    starter.start(connection, id, sagaType, data);
    return id;
  }

  /**
   * Handles every instance whose wake-up time has come (step deadlines, retries, saga deadlines), a
   * batch per transaction; returns how many moved on. The timer calls it; tests may too.
   */
  public int runDueTimers() {
    return timer.runDue();
  }

  /**
   * Starts the timer: {@link #runDueTimers()} every timer interval, on the {@linkplain
   * Builder#scheduler scheduler} given, else on a thread {@code tandem-saga-timer-<name>}.
   *
   * @throws IllegalStateException when it was started or closed before
   */
  public void startTimer() {
    timer.start(scheduler, timerInterval, "tandem-saga-timer-" + name);
  }

  /** Stops the timer. The reply runner is the caller's to close. Idempotent. */
  @Override
  public void close() {
    timer.close();
  }

  /**
   * Puts a {@link SagaStatus#STUCK} saga back to compensating: its failed compensation is sent
   * again at once, with a fresh attempt budget.
   *
   * @throws IllegalStateException when the saga is not STUCK
   * @see SagaQueries#retryStuck
   */
  public void retryStuck(UUID sagaId) {
    queries.retryStuck(sagaId);
  }

  /**
   * Saga instances by type and status (null for any) started before {@code startedBefore}, oldest
   * first, without their step logs.
   *
   * @see SagaQueries#list
   */
  public List<SagaInstance> list(
      String sagaType, SagaStatus status, Instant startedBefore, int limit) {
    return queries.list(sagaType, status, startedBefore, limit);
  }

  /** One saga instance with its full step log. */
  public Optional<SagaInstance> find(UUID sagaId) {
    return queries.find(sagaId);
  }

  /** Builds a {@link SagaOrchestrator}; dataSource, name, replyTo and a definition are required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private String name;
    private String replyTo;
    private final Map<String, SagaDefinition<?>> definitions = new HashMap<>();
    private Clock clock = Clock.systemUTC();
    private FaultInjector faultInjector = FaultInjector.NONE;
    private EventLimits limits = EventLimits.DEFAULTS;
    private Duration timerInterval = DEFAULT_TIMER_INTERVAL;
    private ScheduledExecutorService scheduler;
    private int timerBatchSize = DEFAULT_TIMER_BATCH_SIZE;
    private BiConsumer<UUID, SagaStatus> afterEnd = (id, status) -> {};
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();

    private Builder() {}

    /** The orchestrator's database: saga tables, its outbox and its inbox. Required. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** The orchestrator's stable name; also its inbox consumer name. Required. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** The aggregate type participants send their replies to (its topic). Required. */
    public Builder replyTo(String replyTo) {
      this.replyTo = replyTo;
      return this;
    }

    /** A saga type this orchestrator runs; several may be registered. */
    public Builder definition(SagaDefinition<?> definition) {
      if (definitions.putIfAbsent(definition.type(), definition) != null) {
        throw new IllegalArgumentException(
            "saga type '" + definition.type() + "' is registered already");
      }
      return this;
    }

    /** The clock for deadlines; default UTC system clock. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /** Fault points for drills ({@code orchestrator.after-step}); default none. */
    public Builder faultInjector(FaultInjector faultInjector) {
      this.faultInjector = faultInjector;
      return this;
    }

    /** Size limits of commands; default {@link EventLimits#DEFAULTS} (1 MiB payloads). */
    public Builder limits(EventLimits limits) {
      this.limits = limits;
      return this;
    }

    /** How often the timer looks for due instances; default 200 ms. */
    public Builder timerInterval(Duration timerInterval) {
      this.timerInterval = timerInterval;
      return this;
    }

    /**
     * The scheduler {@link #startTimer()} ticks the timer on (shared with the application, so no
     * hidden thread; {@link #close()} cancels the ticks but does not shut it down); default a
     * single daemon thread {@code tandem-saga-timer-<name>} of the orchestrator's own.
     */
    public Builder scheduler(ScheduledExecutorService scheduler) {
      this.scheduler = scheduler;
      return this;
    }

    /**
     * Told, after the transaction that ended a saga committed, its id and how it ended ({@link
     * SagaStatus#COMPLETED}, {@link SagaStatus#COMPENSATED}, or {@link SagaStatus#STUCK}), on the
     * thread that committed it (a reply lane or the timer): keep it quick; it must not throw.
     * Default: nothing.
     */
    public Builder afterEnd(BiConsumer<UUID, SagaStatus> afterEnd) {
      this.afterEnd = afterEnd;
      return this;
    }

    /** Most due instances the timer handles in one transaction; default 100. */
    public Builder timerBatchSize(int timerBatchSize) {
      this.timerBatchSize = timerBatchSize;
      return this;
    }

    /**
     * Where the orchestrator's metrics go: {@code tandem.saga.started{type}}, {@code
     * tandem.saga.duration{type,status}} (timer with histogram), {@code
     * tandem.saga.went.stuck{type}}, {@code tandem.saga.compensations{type,step}}, {@code
     * tandem.saga.version.conflicts{type}} (replies applied again on a newer row), and the reply
     * processor's {@code tandem.consumer.*}. Default a private in-memory registry.
     */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = meterRegistry;
      return this;
    }

    public SagaOrchestrator build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      if (name == null || !name.matches("[A-Za-z0-9._:-]{1,200}")) {
        throw new IllegalArgumentException(
            "name '" + name + "' is invalid: use 1 to 200 letters, digits, '.', '_', ':' or '-'");
      }
      if (replyTo == null || replyTo.isBlank()) {
        throw new IllegalArgumentException("replyTo is required: the aggregate type replies use");
      }
      if (definitions.isEmpty()) {
        throw new IllegalArgumentException("register at least one saga definition");
      }
      if (clock == null
          || faultInjector == null
          || limits == null
          || meterRegistry == null
          || afterEnd == null) {
        throw new IllegalArgumentException(
            "clock, faultInjector, limits, meterRegistry and afterEnd must not be null");
      }
      if (timerInterval == null || timerInterval.isNegative() || timerInterval.isZero()) {
        throw new IllegalArgumentException("timerInterval must be positive, was " + timerInterval);
      }
      if (timerBatchSize < 1) {
        throw new IllegalArgumentException(
            "timerBatchSize must be at least 1, was " + timerBatchSize);
      }
      return new SagaOrchestrator(this);
    }
  }
}
