package io.tandem.saga.internal;

import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.inbox.Outcome;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a participant's reply inside the inbox's batch transaction: the saga row is read without
 * a lock, the reply closes its command in the step log, {@link SagaMachine} decides, and {@link
 * TransitionWriter} writes the row back only if its version is unchanged. A {@link
 * SagaVersionConflict} rolls back this reply's savepoint alone; the inbox applies it again by
 * itself. Thread-safe (the inbox calls it from several lanes).
 */
public final class ReplyHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ReplyHandler.class);

  private final SagaRows rows;
  private final StepLog stepLog;
  private final Definitions definitions;
  private final TransitionWriter writer;
  private final Clock clock;
  private final FaultInjector faultInjector;
  // afterCommit takes each reply out once its transaction committed (several share one commit).
  private final UnsettledSteps moved;
  private final BiConsumer<UUID, SagaStatus> afterEnd;

  public ReplyHandler(
      SagaRows rows,
      StepLog stepLog,
      Definitions definitions,
      TransitionWriter writer,
      Clock clock,
      FaultInjector faultInjector,
      BiConsumer<UUID, SagaStatus> afterEnd) {
    this.afterEnd = afterEnd;
    this.rows = rows;
    this.stepLog = stepLog;
    this.definitions = definitions;
    this.writer = writer;
    this.clock = clock;
    this.faultInjector = faultInjector;
    this.moved = new UnsettledSteps(clock);
  }

  /** The inbox's handler for every reply type. */
  public void onReply(Connection conn, Event reply) throws SQLException {
    moved.take(reply.eventId()); // a retried reply: only this attempt's result counts
    UUID sagaId = SagaHeaders.sagaId(reply);
    UUID commandId = UUID.fromString(SagaHeaders.required(reply, SagaHeaders.COMMAND_ID));
    boolean succeeded = reply.eventType().equals(SagaHeaders.SUCCEEDED);
    Instant now = clock.instant();
    Optional<SagaRow> read = rows.get(conn, sagaId);
    if (read.isEmpty()) {
      LOG.warn("reply {} for unknown saga {}: ignored", reply.eventId(), sagaId);
      return;
    }
    SagaRow row = read.get();
    if (!stepLog.closeCommand(
        conn, sagaId, commandId, succeeded, reply.eventType(), reply.payload(), now)) {
      LOG.info(
          "saga {}: reply to command {} arrived after it was closed (timed out or superseded);"
              + " ignored",
          sagaId,
          commandId);
      return;
    }
    SagaDefinition<?> def = definitions.of(row.type());
    SagaInput.Reply input =
        new SagaInput.Reply(
            SagaHeaders.required(reply, SagaHeaders.STEP),
            SagaHeaders.COMPENSATION.equals(SagaHeaders.required(reply, SagaHeaders.KIND)),
            succeeded,
            reply.payload());
    Transition t = SagaMachine.next(def, row, input, now);
    if (writer.apply(conn, def, t, now)) {
      moved.applied(reply.eventId(), sagaId, t.ends() ? t.next().status() : null);
    }
  }

  /**
   * The inbox's afterCommit hook: a committed reply that moved its saga on is a step; one that
   * ended it is told to the orchestrator's {@code afterEnd} listener.
   */
  public void afterCommit(Event reply, Outcome outcome) {
    UnsettledSteps.Step step = moved.take(reply.eventId());
    if (step == null || outcome != Outcome.APPLIED) {
      return;
    }
    if (step.endedIn() != null) {
      afterEnd.accept(step.sagaId(), step.endedIn());
    }
    faultInjector.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
  }
}
