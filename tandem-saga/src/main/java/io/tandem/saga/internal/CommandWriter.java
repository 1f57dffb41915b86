package io.tandem.saga.internal;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.EventLimits;
import io.tandem.core.Tracing;
import io.tandem.outbox.Outbox;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaDefinition.Step;
import io.tandem.saga.internal.Transition.Send;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Sends one saga command: the event into the orchestrator's outbox and its line in the step log, in
 * the caller's transaction (which holds the instance's row). Thread-safe.
 */
public final class CommandWriter {
  private final Outbox outbox;
  private final StepLog stepLog;
  private final String replyTo;
  private final EventLimits limits;
  private final OrchestratorMeters meters;
  private final Tracing tracing = Tracing.get();

  public CommandWriter(
      Outbox outbox,
      StepLog stepLog,
      String replyTo,
      EventLimits limits,
      OrchestratorMeters meters) {
    this.outbox = outbox;
    this.stepLog = stepLog;
    this.replyTo = replyTo;
    this.limits = limits;
    this.meters = meters;
  }

  public void send(Connection conn, SagaRow row, SagaDefinition<?> def, Send send, Instant now)
      throws SQLException {
    Step step = def.step(send.stepIndex());
    String command = send.compensation() ? step.compensation().orElseThrow() : step.command();
    String kind = send.compensation() ? SagaHeaders.COMPENSATION : SagaHeaders.FORWARD;
    if (send.compensation()) {
      meters.compensationSent(row.type(), step.name());
    }
    int seq = stepLog.nextSeq(conn, row.id());
    EventHeaders.Builder headers =
        EventHeaders.builder()
            .correlationId(row.id().toString())
            .put(SagaHeaders.SAGA_ID, row.id().toString())
            .put(SagaHeaders.SAGA_TYPE, row.type())
            .put(SagaHeaders.STEP, step.name())
            .put(SagaHeaders.KIND, kind)
            .put(SagaHeaders.ATTEMPT, Integer.toString(send.attempt()))
            .put(SagaHeaders.REPLY_TO, replyTo);
    // Sent with no span current (the timer: a step's timeout, a retry, a compensation it
    // starts): the command continues the trace of the saga's last command, not a new one.
    if (tracing != Tracing.NONE && tracing.currentContext().isEmpty()) {
      stepLog.lastCommandTraceContext(conn, row.id()).forEach(headers::put);
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
    stepLog.logCommand(
        conn,
        new StepLog.Entry(
            seq,
            row.id(),
            step.name(),
            send.stepIndex(),
            send.compensation(),
            send.attempt(),
            event.eventId(),
            command),
        now);
  }
}
