package io.tandem.saga;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.EventLimits;
import io.tandem.core.FaultInjector;
import io.tandem.core.TandemException;
import io.tandem.core.Tracing;
import io.tandem.core.json.Json;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.Outcome;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.saga.SagaDefinition.Step;
import io.tandem.saga.internal.SagaHeaders;
import io.tandem.saga.internal.SagaRow;
import io.tandem.saga.internal.SagaStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
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
 * dropped. Deadlines and retries are {@code wakeup_at} values in {@code tandem_saga}, claimed by
 * the timer of any orchestrator instance with {@code FOR UPDATE SKIP LOCKED}; a reply that arrives
 * after its command timed out is logged and ignored. Every transition locks the instance's row and
 * checks its version, so several orchestrator instances can run at once; when one dies, the others'
 * reply consumers and timers carry its sagas on.
 *
 * <p>The fault point {@link FaultInjector#ORCHESTRATOR_AFTER_STEP} follows every committed
 * transition: a start, a reply that moved its saga on (not a duplicate, not a stale reply), a
 * timer's deadline or retry. Thread-safe.
 */
public final class SagaOrchestrator implements AutoCloseable {
  public static final Duration DEFAULT_TIMER_INTERVAL = Duration.ofMillis(200);

  private static final Logger LOG = LoggerFactory.getLogger(SagaOrchestrator.class);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final SagaStore store;
  private final Outbox outbox;
  private final String name;
  private final String replyTo;
  private final Map<String, SagaDefinition<?>> definitions;
  private final Clock clock;
  private final FaultInjector faultInjector;
  private final EventLimits limits;
  private final Duration timerInterval;
  private final InboxProcessor replies;
  private final SagaQueries queries;
  private final MeterRegistry meters;
  private final Tracing tracing = Tracing.get();
  private Thread timer; // guarded by this
  // Replies whose handler moved their saga on: the consumer's commit of such a reply is a step
  // transition (a duplicate or a stale reply commits too, and is not one). The inbox's afterCommit
  // hook takes each one out once its transaction committed (several may share one batch commit).
  private final Set<UUID> repliesMoved = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private SagaOrchestrator(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    this.store = new SagaStore(dialect);
    this.outbox = Outbox.create(dialect);
    this.name = b.name;
    this.replyTo = b.replyTo;
    this.definitions = Map.copyOf(b.definitions);
    this.clock = b.clock;
    this.faultInjector = b.faultInjector;
    this.limits = b.limits;
    this.timerInterval = b.timerInterval;
    this.queries = new SagaQueries(dataSource, dialect, definitions, clock);
    this.meters = b.meterRegistry;
    this.replies =
        InboxProcessor.builder()
            .dataSource(dataSource)
            .dialect(dialect)
            .consumer(name)
            .ordered(false) // replies carry their step and attempt; stale ones are recognised
            .onAnyEventType(Integer.MAX_VALUE, (conn, reply) -> onReply(conn, reply))
            .faultInjector(b.faultInjector)
            .afterCommit(
                (reply, outcome) -> {
                  if (repliesMoved.remove(reply.eventId()) && outcome == Outcome.APPLIED) {
                    b.faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
                  }
                })
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
   * #replyTo()} topic (one consumer group shared by all orchestrator instances).
   */
  public InboxProcessor replyProcessor() {
    return replies;
  }

  // ---- starting -------------------------------------------------------------------------------

  /** Starts a saga in its own transaction; returns its id. */
  public UUID start(String sagaType, Object data) {
    UUID id = UUID.randomUUID();
    try {
      Transactions.inTransaction(
          dataSource, dialect.consumerIsolation(), conn -> startIn(conn, id, sagaType, data));
    } catch (SQLException e) {
      throw new JdbcException("starting saga " + sagaType + " failed", e);
    }
    faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
    return id;
  }

  /**
   * Starts a saga in the caller's open transaction on {@code connection} (for instance together
   * with the business row that asked for it); nothing is sent unless the caller commits.
   */
  public UUID startIn(Connection connection, String sagaType, Object data) throws SQLException {
    return startIn(connection, UUID.randomUUID(), sagaType, data);
  }

  private UUID startIn(Connection conn, UUID id, String sagaType, Object data) throws SQLException {
    SagaDefinition<?> def = definition(sagaType);
    if (data == null || !def.dataType().isInstance(data)) {
      throw new IllegalArgumentException(
          "saga '"
              + sagaType
              + "' needs data of type "
              + def.dataType().getName()
              + ", got "
              + data);
    }
    String json = Json.write(data);
    if (!Json.mapper().valueToTree(data).isObject()) {
      throw new IllegalArgumentException("saga data must serialise to a JSON object, got " + json);
    }
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > limits.maxPayloadBytes() - 4096) {
      throw new IllegalArgumentException(
          "saga data of '"
              + sagaType
              + "' is "
              + bytes
              + " bytes: every command carries it, and a command may carry at most "
              + (limits.maxPayloadBytes() - 4096)
              + " bytes (EventLimits.maxPayloadBytes minus room for replies); keep large"
              + " documents elsewhere and put their reference in the saga data");
    }
    Instant now = clock.instant();
    Instant deadline = def.sagaTimeout().map(now::plus).orElse(null);
    SagaRow row =
        new SagaRow(
            id,
            sagaType,
            SagaStatus.RUNNING,
            0,
            1,
            List.of(),
            json,
            1,
            wakeup(now.plus(def.stepTimeout()), deadline),
            deadline,
            null,
            now,
            now,
            null);
    store.insert(conn, row);
    send(conn, row, def, 0, false, 1, now);
    meters.counter("tandem.saga.started", "type", sagaType).increment();
    LOG.debug("saga {} {} started", sagaType, id);
    return id;
  }

  // ---- replies --------------------------------------------------------------------------------

  private void onReply(Connection conn, Event reply) throws SQLException {
    repliesMoved.remove(reply.eventId()); // a retried reply: only this attempt's result counts
    UUID sagaId = SagaHeaders.sagaId(reply);
    UUID commandId = UUID.fromString(SagaHeaders.required(reply, SagaHeaders.COMMAND_ID));
    boolean succeeded = reply.eventType().equals(SagaHeaders.SUCCEEDED);
    Instant now = clock.instant();
    Optional<SagaRow> locked = store.lock(conn, sagaId);
    if (locked.isEmpty()) {
      LOG.warn("reply {} for unknown saga {}: ignored", reply.eventId(), sagaId);
      return;
    }
    SagaRow row = locked.get();
    boolean pending =
        store.closeCommand(
            conn,
            sagaId,
            commandId,
            succeeded ? "SUCCEEDED" : "FAILED",
            reply.eventType(),
            reply.payload(),
            now);
    if (!pending) {
      LOG.info(
          "saga {}: reply to command {} arrived after it was closed (timed out or superseded);"
              + " ignored",
          sagaId,
          commandId);
      return;
    }
    SagaDefinition<?> def = definition(row.type());
    Step step = stepNamed(def, SagaHeaders.required(reply, SagaHeaders.STEP));
    boolean compensation =
        SagaHeaders.COMPENSATION.equals(SagaHeaders.required(reply, SagaHeaders.KIND));
    SagaRow next = row;
    if (!compensation && row.status() == SagaStatus.RUNNING && step.index() == row.stepIndex()) {
      next =
          succeeded
              ? advance(conn, def, merge(row, reply), now)
              : forwardFailed(conn, def, row, reason(reply), now);
    } else if (compensation && row.status() == SagaStatus.COMPENSATING) {
      next = compensationReply(conn, def, row, step, succeeded, reason(reply), now);
    } else {
      LOG.info(
          "saga {} is {} at step {}; reply for {} ({}) changes nothing",
          sagaId,
          row.status(),
          row.stepIndex(),
          step.name(),
          compensation ? "compensation" : "forward");
      return;
    }
    save(conn, row, next, now);
    repliesMoved.add(reply.eventId());
  }

  private SagaRow merge(SagaRow row, Event reply) {
    try {
      JsonNode fields = Json.parse(reply.payload());
      if (!fields.isObject() || fields.isEmpty()) {
        return row;
      }
      ObjectNode data = (ObjectNode) Json.parse(row.data());
      data.setAll((ObjectNode) fields);
      return row.withData(Json.write(data));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new TandemException("saga " + row.id() + ": stored data is not JSON", e);
    }
  }

  private static String reason(Event reply) {
    try {
      JsonNode n = Json.parse(reply.payload());
      return n.hasNonNull("reason") ? n.get("reason").asText() : reply.payload();
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return reply.payload();
    }
  }

  /** The current forward step succeeded: the next step, or the end. */
  private SagaRow advance(Connection conn, SagaDefinition<?> def, SagaRow row, Instant now)
      throws SQLException {
    int next = row.stepIndex() + 1;
    if (next == def.steps().size()) {
      return row.with(SagaStatus.COMPLETED, row.stepIndex(), row.attempt()).withWakeup(null);
    }
    SagaRow moved = row.with(SagaStatus.RUNNING, next, 1);
    send(conn, moved, def, next, false, 1, now);
    return moved.withWakeup(wakeup(now.plus(def.stepTimeout()), deadlineIfCompensable(def, moved)));
  }

  private SagaRow forwardFailed(
      Connection conn, SagaDefinition<?> def, SagaRow row, String reason, Instant now)
      throws SQLException {
    Step step = def.step(row.stepIndex());
    if (step.kind() == StepKind.RETRIABLE) {
      Duration delay = def.retryPolicy().delayAfter(row.attempt());
      LOG.info(
          "saga {}: retriable step {} failed ({}); again in {}",
          row.id(),
          step.name(),
          reason,
          delay);
      return row.withError(step.name() + ": " + reason).withWakeup(now.plus(delay));
    }
    LOG.info("saga {}: step {} failed ({}); compensating", row.id(), step.name(), reason);
    return beginCompensation(
        conn, def, row.withError(step.name() + ": " + reason), row.stepIndex() - 1, now);
  }

  /** Compensates the compensatable steps at or below {@code from}, last first. */
  private SagaRow beginCompensation(
      Connection conn, SagaDefinition<?> def, SagaRow row, int from, Instant now)
      throws SQLException {
    List<Integer> targets = new ArrayList<>();
    for (int i = Math.min(from, def.steps().size() - 1); i >= 0; i--) {
      if (def.step(i).kind() == StepKind.COMPENSATABLE) {
        targets.add(i);
      }
    }
    if (targets.isEmpty()) {
      return row.with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt()).withWakeup(null);
    }
    Instant timeout = now.plus(def.stepTimeout());
    if (def.parallelCompensation()) {
      SagaRow compensating =
          row.with(SagaStatus.COMPENSATING, targets.get(0), 1).withPending(targets);
      for (int i : targets) {
        send(conn, compensating, def, i, true, 1, now);
      }
      return compensating.withWakeup(timeout);
    }
    SagaRow compensating =
        row.with(SagaStatus.COMPENSATING, targets.get(0), 1).withPending(List.of());
    send(conn, compensating, def, targets.get(0), true, 1, now);
    return compensating.withWakeup(timeout);
  }

  private SagaRow compensationReply(
      Connection conn,
      SagaDefinition<?> def,
      SagaRow row,
      Step step,
      boolean succeeded,
      String reason,
      Instant now)
      throws SQLException {
    if (def.parallelCompensation()) {
      if (!row.pending().contains(step.index())) {
        return row;
      }
      if (succeeded) {
        List<Integer> left = new ArrayList<>(row.pending());
        left.remove(Integer.valueOf(step.index()));
        SagaRow updated = row.withPending(left);
        return left.isEmpty()
            ? updated.with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt()).withWakeup(null)
            : updated;
      }
      return compensationFailed(row, step, reason, now, def);
    }
    if (step.index() != row.stepIndex()) {
      return row;
    }
    if (!succeeded) {
      return compensationFailed(row, step, reason, now, def);
    }
    for (int i = step.index() - 1; i >= 0; i--) {
      if (def.step(i).kind() == StepKind.COMPENSATABLE) {
        SagaRow moved = row.with(SagaStatus.COMPENSATING, i, 1);
        send(conn, moved, def, i, true, 1, now);
        return moved.withWakeup(now.plus(def.stepTimeout()));
      }
    }
    return row.with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt()).withWakeup(null);
  }

  private SagaRow compensationFailed(
      SagaRow row, Step step, String reason, Instant now, SagaDefinition<?> def) {
    String error =
        "compensation of " + step.name() + " failed (attempt " + row.attempt() + "): " + reason;
    if (row.attempt() >= def.compensationAttempts()) {
      LOG.error("saga {} is STUCK: {}; an operator must look", row.id(), error);
      return row.with(SagaStatus.STUCK, row.stepIndex(), row.attempt())
          .withError(error)
          .withWakeup(null);
    }
    Duration delay = def.retryPolicy().delayAfter(row.attempt());
    LOG.warn("saga {}: {}; again in {}", row.id(), error, delay);
    return row.withError(error).withWakeup(now.plus(delay));
  }

  // ---- timer ----------------------------------------------------------------------------------

  /**
   * Handles every instance whose wake-up time has come (step deadlines, retries, saga deadlines),
   * one transaction each; returns how many it handled. The timer thread calls it; tests may too.
   */
  public int runDueTimers() {
    int handled = 0;
    while (!closed) {
      boolean one;
      try {
        one = Transactions.inTransaction(dataSource, dialect.consumerIsolation(), this::wakeOne);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("saga timer: handling a due instance failed; retrying later", e);
        break;
      }
      if (!one) {
        break;
      }
      handled++;
      faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
    }
    return handled;
  }

  private boolean wakeOne(Connection conn) throws SQLException {
    Instant now = clock.instant();
    Optional<UUID> due = store.lockDue(conn, now);
    if (due.isEmpty()) {
      return false;
    }
    SagaRow row = store.lock(conn, due.get()).orElseThrow();
    SagaDefinition<?> def = definition(row.type());
    save(conn, row, wake(conn, def, row, now), now);
    return true;
  }

  private SagaRow wake(Connection conn, SagaDefinition<?> def, SagaRow row, Instant now)
      throws SQLException {
    switch (row.status()) {
      case RUNNING -> {
        Step step = def.step(row.stepIndex());
        boolean compensable = def.pivotIndex() < 0 || row.stepIndex() <= def.pivotIndex();
        if (row.deadlineAt() != null
            && !now.isBefore(row.deadlineAt())
            && compensable
            && step.kind() != StepKind.PIVOT) {
          store.closePending(conn, row.id(), row.stepIndex(), false, "TIMED_OUT", now);
          LOG.info("saga {} passed its deadline at step {}; compensating", row.id(), step.name());
          return beginCompensation(
              conn, def, row.withError("saga timed out at " + step.name()), row.stepIndex(), now);
        }
        boolean timedOut =
            store.closePending(conn, row.id(), row.stepIndex(), false, "TIMED_OUT", now) > 0;
        if (timedOut
            && step.kind() == StepKind.COMPENSATABLE
            && row.attempt() >= def.forwardAttempts()) {
          LOG.info(
              "saga {}: step {} got no reply after {} attempts; compensating",
              row.id(),
              step.name(),
              row.attempt());
          return beginCompensation(
              conn,
              def,
              row.withError(step.name() + ": no reply after " + row.attempt() + " attempts"),
              row.stepIndex(),
              now);
        }
        SagaRow again = row.with(SagaStatus.RUNNING, row.stepIndex(), row.attempt() + 1);
        send(conn, again, def, row.stepIndex(), false, again.attempt(), now);
        return again.withWakeup(
            wakeup(now.plus(def.stepTimeout()), deadlineIfCompensable(def, again)));
      }
      case COMPENSATING -> {
        Step step = def.step(row.stepIndex());
        boolean timedOut =
            def.parallelCompensation()
                ? closeAllPending(conn, row, now) > 0
                : store.closePending(conn, row.id(), row.stepIndex(), true, "TIMED_OUT", now) > 0;
        if (timedOut) {
          SagaRow failed =
              compensationFailed(row, step, "no reply within " + def.stepTimeout(), now, def);
          if (failed.status() == SagaStatus.STUCK) {
            return failed;
          }
        }
        SagaRow again = row.with(SagaStatus.COMPENSATING, row.stepIndex(), row.attempt() + 1);
        if (def.parallelCompensation()) {
          for (int i : row.pending()) {
            send(conn, again, def, i, true, again.attempt(), now);
          }
        } else {
          send(conn, again, def, row.stepIndex(), true, again.attempt(), now);
        }
        return again.withWakeup(now.plus(def.stepTimeout()));
      }
      default -> {
        return row.withWakeup(null);
      }
    }
  }

  private int closeAllPending(Connection conn, SagaRow row, Instant now) throws SQLException {
    int closed = 0;
    for (int i : row.pending()) {
      closed += store.closePending(conn, row.id(), i, true, "TIMED_OUT", now);
    }
    return closed;
  }

  /**
   * Starts the timer thread ({@code tandem-saga-timer-<name>}), which calls {@link #runDueTimers()}
   * every timer interval.
   */
  public synchronized void startTimer() {
    if (timer != null || closed) {
      throw new IllegalStateException(
          "the saga timer of " + name + " is already started or closed");
    }
    timer =
        new Thread(
            () -> {
              while (!closed) {
                try {
                  runDueTimers();
                  Thread.sleep(timerInterval.toMillis());
                } catch (InterruptedException e) {
                  return;
                } catch (FaultInjector.SimulatedCrash crash) {
                  LOG.warn("saga timer of {}: {}", name, crash.getMessage());
                  return;
                } catch (RuntimeException e) {
                  LOG.warn("saga timer of {} failed; going on", name, e);
                }
              }
            },
            "tandem-saga-timer-" + name);
    timer.setDaemon(true);
    timer.start();
  }

  /** Stops the timer thread. The reply runner is the caller's to close. Idempotent. */
  @Override
  public void close() {
    closed = true;
    Thread t;
    synchronized (this) {
      t = timer;
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // ---- operator actions and queries -----------------------------------------------------------

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

  // ---- plumbing -------------------------------------------------------------------------------

  private void send(
      Connection conn,
      SagaRow row,
      SagaDefinition<?> def,
      int stepIndex,
      boolean compensation,
      int attempt,
      Instant now)
      throws SQLException {
    Step step = def.step(stepIndex);
    String command = compensation ? step.compensation().orElseThrow() : step.command();
    String kind = compensation ? SagaHeaders.COMPENSATION : SagaHeaders.FORWARD;
    if (compensation) {
      meters
          .counter("tandem.saga.compensations", "type", row.type(), "step", step.name())
          .increment();
    }
    int seq = store.nextSeq(conn, row.id());
    EventHeaders.Builder headers =
        EventHeaders.builder()
            .correlationId(row.id().toString())
            .put(SagaHeaders.SAGA_ID, row.id().toString())
            .put(SagaHeaders.SAGA_TYPE, row.type())
            .put(SagaHeaders.STEP, step.name())
            .put(SagaHeaders.KIND, kind)
            .put(SagaHeaders.ATTEMPT, Integer.toString(attempt))
            .put(SagaHeaders.REPLY_TO, replyTo);
    // Sent with no span current (the timer: a step's timeout, a retry, a compensation it
    // starts): the command continues the trace of the saga's last command, not a new one.
    if (tracing != Tracing.NONE && tracing.currentContext().isEmpty()) {
      store.lastCommandTraceContext(conn, row.id()).forEach(headers::put);
    }
    Event event =
        Event.builder()
            // one aggregate per command sent: commands are independent messages (no ordering)
            .aggregate(step.participant(), row.id() + "/" + seq + "/" + step.name() + "/" + kind, 1)
            .eventType(command)
            .storedPayload(row.data())
            .limits(limits)
            .headers(headers.build())
            .occurredAt(now)
            .build();
    outbox.append(conn, event);
    store.logCommand(
        conn,
        seq,
        row.id(),
        step.name(),
        stepIndex,
        compensation,
        attempt,
        event.eventId(),
        command,
        now);
  }

  private void save(Connection conn, SagaRow from, SagaRow row, Instant now) throws SQLException {
    if (!from.status().canBecome(row.status())) {
      throw new IllegalStateException(
          "saga " + row.id() + ": illegal transition " + from.status() + " -> " + row.status());
    }
    if (!store.update(conn, row, now)) {
      throw new TandemException(
          "saga " + row.id() + " changed under this transition (version " + row.version() + ")");
    }
    if (row.status().terminal()) {
      LOG.debug("saga {} {}", row.id(), row.status());
    }
    if (row.status() != from.status()) {
      count(row, now);
    }
  }

  /**
   * Counts a status change as it is written (a transaction that then fails to commit was counted
   * too; the database's {@link SagaMetrics} gauges are the exact figures).
   */
  private void count(SagaRow row, Instant now) {
    if (row.status().terminal()) {
      Timer.builder("tandem.saga.duration")
          .description("Time from a saga's start to its end (COMPLETED or COMPENSATED)")
          .tag("type", row.type())
          .tag("status", row.status().name())
          .publishPercentileHistogram()
          .register(meters)
          .record(Duration.between(row.startedAt(), now));
    } else if (row.status() == SagaStatus.STUCK) {
      meters.counter("tandem.saga.went.stuck", "type", row.type()).increment();
    }
  }

  private static Instant wakeup(Instant stepDeadline, Instant sagaDeadline) {
    return sagaDeadline != null && sagaDeadline.isBefore(stepDeadline)
        ? sagaDeadline
        : stepDeadline;
  }

  private static Instant deadlineIfCompensable(SagaDefinition<?> def, SagaRow row) {
    boolean beforePivot = def.pivotIndex() < 0 || row.stepIndex() < def.pivotIndex();
    return beforePivot ? row.deadlineAt() : null;
  }

  private SagaDefinition<?> definition(String type) {
    SagaDefinition<?> def = definitions.get(type);
    if (def == null) {
      throw new IllegalArgumentException(
          "orchestrator "
              + name
              + " has no saga definition '"
              + type
              + "'; it knows "
              + definitions.keySet());
    }
    return def;
  }

  private static Step stepNamed(SagaDefinition<?> def, String name) {
    for (Iterator<Step> it = def.steps().iterator(); it.hasNext(); ) {
      Step s = it.next();
      if (s.name().equals(name)) {
        return s;
      }
    }
    throw new TandemException("saga " + def.type() + " has no step '" + name + "'");
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
    private io.micrometer.core.instrument.MeterRegistry meterRegistry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

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
     * Where the orchestrator's metrics go: {@code tandem.saga.started{type}}, {@code
     * tandem.saga.duration{type,status}} (timer with histogram), {@code
     * tandem.saga.went.stuck{type}}, {@code tandem.saga.compensations{type,step}}, and the reply
     * processor's {@code tandem.consumer.*}. Default a private in-memory registry.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry meterRegistry) {
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
      if (clock == null || faultInjector == null || limits == null || meterRegistry == null) {
        throw new IllegalArgumentException(
            "clock, faultInjector, limits and meterRegistry must not be null");
      }
      if (timerInterval == null || timerInterval.isNegative() || timerInterval.isZero()) {
        throw new IllegalArgumentException("timerInterval must be positive, was " + timerInterval);
      }
      return new SagaOrchestrator(this);
    }
  }
}
