package io.tandem.saga.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tandem.core.TandemException;
import io.tandem.core.json.Json;
import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaDefinition.Step;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.StepKind;
import io.tandem.saga.internal.Transition.Send;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The saga state machine as a pure function: {@code (definition, row, input, now) -> (next row,
 * commands to send)}. No database, no clock, no log: the orchestrator reads the row, asks here and
 * applies the {@link Transition}; tests call it directly. Forward steps are decided here,
 * compensations in {@link Compensations}. Stateless and thread-safe.
 */
public final class SagaMachine {
  private SagaMachine() {}

  /** A new instance of {@code def} with saga data {@code json}, and its first command. */
  public static Transition start(SagaDefinition<?> def, UUID id, String json, Instant now) {
    Instant deadline = def.sagaTimeout().map(now::plus).orElse(null);
    SagaRow row =
        new SagaRow(
            id,
            def.type(),
            SagaStatus.RUNNING,
            0,
            1,
            List.of(),
            json,
            1,
            earlier(now.plus(def.stepTimeout()), deadline),
            deadline,
            null,
            now,
            now,
            null);
    return new Transition(null, row, List.of(new Send(0, false, 1)), null);
  }

  /** What {@code input} does to {@code row}. */
  public static Transition next(SagaDefinition<?> def, SagaRow row, SagaInput input, Instant now) {
    if (input instanceof SagaInput.Reply reply) {
      return onReply(def, row, reply, now);
    }
    if (input instanceof SagaInput.Timer timer) {
      return onTimer(def, row, timer, now);
    }
    return retryStuck(row, now);
  }

  /**
   * An operator's retry of a {@link SagaStatus#STUCK} instance: compensating again at once, with a
   * fresh attempt budget (needs no definition).
   *
   * @throws IllegalStateException when the instance is not STUCK
   */
  public static Transition retryStuck(SagaRow row, Instant now) {
    return Compensations.retryStuck(row, now);
  }

  /**
   * The steps whose pending commands a wake-up of {@code row} closes as timed out before it calls
   * {@link #next} with a {@link SagaInput.Timer}: the current forward step, or the compensations
   * under way.
   */
  public static List<Send> awaited(SagaDefinition<?> def, SagaRow row) {
    return switch (row.status()) {
      case RUNNING -> List.of(new Send(row.stepIndex(), false, row.attempt()));
      case COMPENSATING ->
          def.parallelCompensation()
              ? row.pending().stream().map(i -> new Send(i, true, row.attempt())).toList()
              : List.of(new Send(row.stepIndex(), true, row.attempt()));
      default -> List.of();
    };
  }

  private static Transition onReply(
      SagaDefinition<?> def, SagaRow row, SagaInput.Reply reply, Instant now) {
    Step step = stepNamed(def, reply.step());
    boolean current = step.index() == row.stepIndex();
    if (!reply.compensation() && row.status() == SagaStatus.RUNNING && current) {
      return reply.succeeded()
          ? advance(def, row, merge(row, reply.payload()), now)
          : forwardFailed(def, row, reason(reply.payload()), now);
    }
    if (reply.compensation() && row.status() == SagaStatus.COMPENSATING) {
      return Compensations.onReply(def, row, step, reply.succeeded(), reason(reply.payload()), now);
    }
    return unchanged(
        row,
        "saga is "
            + row.status()
            + " at step "
            + row.stepIndex()
            + "; the reply for "
            + step.name()
            + (reply.compensation() ? " (compensation)" : " (forward)")
            + " changes nothing");
  }

  /** The current forward step succeeded: the next step, or the end. */
  private static Transition advance(
      SagaDefinition<?> def, SagaRow from, SagaRow merged, Instant now) {
    int next = merged.stepIndex() + 1;
    if (next == def.steps().size()) {
      SagaRow done =
          merged.with(SagaStatus.COMPLETED, merged.stepIndex(), merged.attempt()).withWakeup(null);
      return new Transition(from, done, List.of(), null);
    }
    SagaRow moved = merged.with(SagaStatus.RUNNING, next, 1);
    return new Transition(
        from,
        moved.withWakeup(earlier(now.plus(def.stepTimeout()), deadlineIfCompensable(def, moved))),
        List.of(new Send(next, false, 1)),
        null);
  }

  private static Transition forwardFailed(
      SagaDefinition<?> def, SagaRow row, String reason, Instant now) {
    Step step = def.step(row.stepIndex());
    SagaRow failed = row.withError(step.name() + ": " + reason);
    if (step.kind() == StepKind.RETRIABLE) {
      Duration delay = def.retryPolicy().delayAfter(row.attempt());
      return new Transition(
          row,
          failed.withWakeup(now.plus(delay)),
          List.of(),
          "retriable step " + step.name() + " failed (" + reason + "); again in " + delay);
    }
    return Compensations.begin(
        def,
        row,
        failed,
        row.stepIndex() - 1,
        now,
        "step " + step.name() + " failed (" + reason + ")");
  }

  private static Transition onTimer(
      SagaDefinition<?> def, SagaRow row, SagaInput.Timer timer, Instant now) {
    return switch (row.status()) {
      case RUNNING -> forwardWakeup(def, row, timer.timedOut(), now);
      case COMPENSATING -> Compensations.onTimer(def, row, timer.timedOut(), now);
      default -> new Transition(row, row.withWakeup(null), List.of(), null);
    };
  }

  private static Transition forwardWakeup(
      SagaDefinition<?> def, SagaRow row, boolean timedOut, Instant now) {
    Step step = def.step(row.stepIndex());
    boolean compensable = def.pivotIndex() < 0 || row.stepIndex() <= def.pivotIndex();
    if (row.deadlineAt() != null
        && !now.isBefore(row.deadlineAt())
        && compensable
        && step.kind() != StepKind.PIVOT) {
      return Compensations.begin(
          def,
          row,
          row.withError("saga timed out at " + step.name()),
          row.stepIndex(),
          now,
          "passed its deadline at step " + step.name());
    }
    if (timedOut
        && step.kind() == StepKind.COMPENSATABLE
        && row.attempt() >= def.forwardAttempts()) {
      return Compensations.begin(
          def,
          row,
          row.withError(step.name() + ": no reply after " + row.attempt() + " attempts"),
          row.stepIndex(),
          now,
          "step " + step.name() + " got no reply after " + row.attempt() + " attempts");
    }
    SagaRow again = row.with(SagaStatus.RUNNING, row.stepIndex(), row.attempt() + 1);
    return new Transition(
        row,
        again.withWakeup(earlier(now.plus(def.stepTimeout()), deadlineIfCompensable(def, again))),
        List.of(new Send(row.stepIndex(), false, again.attempt())),
        null);
  }

  static Transition unchanged(SagaRow row, String note) {
    return new Transition(row, row, List.of(), note);
  }

  private static SagaRow merge(SagaRow row, String payload) {
    try {
      JsonNode fields = Json.parse(payload);
      if (!fields.isObject() || fields.isEmpty()) {
        return row;
      }
      ObjectNode data = (ObjectNode) Json.parse(row.data());
      data.setAll((ObjectNode) fields);
      return row.withData(Json.write(data));
    } catch (JsonProcessingException e) {
      throw new TandemException("saga " + row.id() + ": stored data or reply is not JSON", e);
    }
  }

  private static String reason(String payload) {
    try {
      JsonNode n = Json.parse(payload);
      return n.hasNonNull("reason") ? n.get("reason").asText() : payload;
    } catch (JsonProcessingException e) {
      return payload;
    }
  }

  private static Instant earlier(Instant stepDeadline, Instant sagaDeadline) {
    return sagaDeadline != null && sagaDeadline.isBefore(stepDeadline)
        ? sagaDeadline
        : stepDeadline;
  }

  private static Instant deadlineIfCompensable(SagaDefinition<?> def, SagaRow row) {
    boolean beforePivot = def.pivotIndex() < 0 || row.stepIndex() < def.pivotIndex();
    return beforePivot ? row.deadlineAt() : null;
  }

  /** The step named {@code name} of {@code def}. */
  public static Step stepNamed(SagaDefinition<?> def, String name) {
    for (Step s : def.steps()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    throw new TandemException("saga " + def.type() + " has no step '" + name + "'");
  }
}
