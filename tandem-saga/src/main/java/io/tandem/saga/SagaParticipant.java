package io.tandem.saga;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.FaultInjector;
import io.tandem.core.Tracing;
import io.tandem.inbox.InboxProcessor;
import io.tandem.inbox.PermanentHandlerException;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.Outbox;
import io.tandem.saga.internal.Participations;
import io.tandem.saga.internal.Participations.Participation;
import io.tandem.saga.internal.SagaHeaders;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service side of an orchestrated saga: handles a command through the inbox, applies the local
 * transaction and writes the reply to the participant's own outbox — all in one local transaction.
 *
 * <pre>{@code
 * SagaParticipant payment = SagaParticipant.builder()
 *     .dataSource(paymentDb)
 *     .name("payment")                      // the aggregate type its commands are sent as
 *     .command("AuthorizePayment", (conn, cmd) -> payments.authorize(conn, cmd.sagaId(),
 *         cmd.dataAs(Checkout.class)))      // returns StepResult.success(...) or .failure(...)
 *     .compensation("RefundPayment", (conn, cmd) -> payments.refund(conn, cmd.sagaId()))
 *     .build();
 * // run payment.processor() with a ConsumerRunner on the "payment" topic
 * }</pre>
 *
 * <p>It remembers, per (saga, step), what it did ({@code tandem_saga_participation}), which makes
 * the classic hazards harmless:
 *
 * <ul>
 *   <li>a command sent again (after a timeout) gets the recorded reply again; the work runs once (a
 *       step that failed runs again on the next attempt: retriable steps are retried this way);
 *   <li>a compensation of a step it never applied (the command was lost or is late) is an <em>empty
 *       compensation</em>: recorded, answered with success, nothing undone;
 *   <li>a forward command that arrives after its compensation ran is a <em>late forward</em>:
 *       refused with a failure reply and not applied;
 *   <li>a compensation of a step whose forward command failed has nothing to undo.
 * </ul>
 *
 * <p>A compensation handler that returns a failure is answered as such; the orchestrator retries it
 * with backoff. Thread-safe.
 */
public final class SagaParticipant {
  private static final Logger LOG = LoggerFactory.getLogger(SagaParticipant.class);

  /** Participation states. */
  static final String APPLIED = "APPLIED";

  static final String FAILED = "FAILED";
  static final String COMPENSATED = "COMPENSATED";
  static final String CANCELLED = "CANCELLED";

  private final String name;
  private final Participations store;
  private final Outbox outbox;
  private final Map<String, CommandHandler> commands;
  private final Map<String, CommandHandler> compensations;
  private final Clock clock;
  private final InboxProcessor processor;

  private SagaParticipant(Builder b) {
    Dialect dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    this.name = b.name;
    this.store = new Participations(dialect);
    this.outbox = Outbox.create(dialect);
    this.commands = Map.copyOf(b.commands);
    this.compensations = Map.copyOf(b.compensations);
    this.clock = b.clock;
    InboxProcessor.Builder p =
        InboxProcessor.builder()
            .dataSource(b.dataSource)
            .dialect(dialect)
            .consumer(b.name)
            .ordered(false) // a compensation must be able to overtake its late forward command
            .faultInjector(b.faultInjector)
            .meterRegistry(b.meterRegistry);
    for (String command : commands.keySet()) {
      p.on(command, Integer.MAX_VALUE, (conn, e) -> forward(conn, e));
    }
    for (String compensation : compensations.keySet()) {
      p.on(compensation, Integer.MAX_VALUE, (conn, e) -> compensate(conn, e));
    }
    this.processor = p.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The participant's name: the aggregate type (topic) of the commands it handles. */
  public String name() {
    return name;
  }

  /** The processor to run with a {@code ConsumerRunner} on the participant's command topic. */
  public InboxProcessor processor() {
    return processor;
  }

  private void forward(Connection conn, Event e) throws SQLException {
    SagaCommand cmd = command(e);
    Optional<Participation> seen = store.lock(conn, name, cmd.sagaId(), cmd.step());
    if (seen.isPresent()) {
      Participation p = seen.get();
      if (p.state().equals(COMPENSATED) || p.state().equals(CANCELLED)) {
        LOG.info(
            "{}: late forward {} of saga {} step {} refused: its compensation already ran",
            name,
            cmd.name(),
            cmd.sagaId(),
            cmd.step());
        reply(conn, e, StepResult.failure("refused: the compensation of this step already ran"));
        return;
      }
      if (p.state().equals(APPLIED)) {
        reply(conn, e, true, p.reply()); // a resend: the step ran once, answer the same
        return;
      }
      // FAILED before: a new attempt (a retriable step) runs the work again
    }
    StepResult result = commands.get(cmd.name()).handle(conn, cmd);
    store.save(
        conn,
        seen.isPresent(),
        name,
        cmd.sagaId(),
        cmd.step(),
        new Participation(
            result.succeeded() ? APPLIED : FAILED, type(result.succeeded()), result.payload()),
        clock.instant());
    reply(conn, e, result);
  }

  private void compensate(Connection conn, Event e) throws SQLException {
    SagaCommand cmd = command(e);
    Optional<Participation> seen = store.lock(conn, name, cmd.sagaId(), cmd.step());
    if (seen.isEmpty()) {
      // Empty compensation: the forward command never ran here (lost, or still on its way).
      store.save(
          conn,
          false,
          name,
          cmd.sagaId(),
          cmd.step(),
          new Participation(CANCELLED, SagaHeaders.SUCCEEDED, "{}"),
          clock.instant());
      reply(conn, e, StepResult.success());
      return;
    }
    Participation p = seen.get();
    if (!p.state().equals(APPLIED)) {
      reply(conn, e, StepResult.success()); // failed forward, or compensated before: nothing to do
      return;
    }
    StepResult result = compensations.get(cmd.name()).handle(conn, cmd);
    if (result.succeeded()) {
      store.save(
          conn,
          true,
          name,
          cmd.sagaId(),
          cmd.step(),
          new Participation(COMPENSATED, SagaHeaders.SUCCEEDED, result.payload()),
          clock.instant());
    }
    reply(conn, e, result);
  }

  private static SagaCommand command(Event e) {
    try {
      return new SagaCommand(
          SagaHeaders.sagaId(e),
          SagaHeaders.required(e, SagaHeaders.SAGA_TYPE),
          SagaHeaders.required(e, SagaHeaders.STEP),
          SagaHeaders.attempt(e),
          e);
    } catch (RuntimeException invalid) {
      throw new PermanentHandlerException("not a saga command: " + invalid.getMessage(), invalid);
    }
  }

  private void reply(Connection conn, Event command, StepResult result) {
    reply(conn, command, result.succeeded(), result.payload());
  }

  private void reply(Connection conn, Event command, boolean succeeded, String payload) {
    String replyTo = SagaHeaders.required(command, SagaHeaders.REPLY_TO);
    UUID sagaId = SagaHeaders.sagaId(command);
    EventHeaders.Builder headers =
        EventHeaders.builder()
            .put(SagaHeaders.SAGA_ID, sagaId.toString())
            .put(SagaHeaders.STEP, SagaHeaders.required(command, SagaHeaders.STEP))
            .put(SagaHeaders.KIND, SagaHeaders.required(command, SagaHeaders.KIND))
            .put(SagaHeaders.ATTEMPT, SagaHeaders.required(command, SagaHeaders.ATTEMPT))
            .put(SagaHeaders.COMMAND_ID, command.eventId().toString());
    command.headers().correlationId().ifPresent(headers::correlationId);
    if (Tracing.get().currentContext().isEmpty()) {
      // no span of this step to parent the reply: it carries the command's trace context on;
      // with one, Outbox.append stores the step's span (a child of the command's) instead
      command.headers().traceparent().ifPresent(headers::traceparent);
      command.headers().tracestate().ifPresent(headers::tracestate);
    }
    outbox.append(
        conn,
        Event.builder()
            .aggregate(replyTo, command.aggregateId() + "/" + name, 1)
            .eventType(type(succeeded))
            .payload(payload)
            .headers(headers.build())
            .occurredAt(clock.instant())
            .build());
  }

  private static String type(boolean succeeded) {
    return succeeded ? SagaHeaders.SUCCEEDED : SagaHeaders.FAILED;
  }

  /** Builds a {@link SagaParticipant}; dataSource, name and one command are required. */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private String name;
    private final Map<String, CommandHandler> commands = new HashMap<>();
    private final Map<String, CommandHandler> compensations = new HashMap<>();
    private Clock clock = Clock.systemUTC();
    private FaultInjector faultInjector = FaultInjector.NONE;
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();

    private Builder() {}

    /** The participant's own database (business tables, outbox, inbox, participation). */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** The participant name sagas address (the command events' aggregate type). */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Handles a forward command. */
    public Builder command(String command, CommandHandler handler) {
      put(commands, command, handler);
      return this;
    }

    /** Handles a compensation command; called only when the forward step was applied here. */
    public Builder compensation(String command, CommandHandler handler) {
      put(compensations, command, handler);
      return this;
    }

    private void put(Map<String, CommandHandler> map, String command, CommandHandler handler) {
      if (command == null || command.isBlank() || handler == null) {
        throw new IllegalArgumentException("a command needs a name and a handler");
      }
      if (commands.containsKey(command) || compensations.containsKey(command)) {
        throw new IllegalArgumentException("command '" + command + "' has a handler already");
      }
      map.put(command, handler);
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder faultInjector(FaultInjector faultInjector) {
      this.faultInjector = faultInjector;
      return this;
    }

    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = meterRegistry;
      return this;
    }

    public SagaParticipant build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      if (name == null || !name.matches("[A-Za-z0-9._:-]{1,200}")) {
        throw new IllegalArgumentException(
            "participant name '"
                + name
                + "' is invalid: use 1 to 200 letters, digits, '.', '_', ':' or '-'");
      }
      if (commands.isEmpty()) {
        throw new IllegalArgumentException("participant " + name + " handles no command");
      }
      return new SagaParticipant(this);
    }
  }
}
