package io.tandem.saga.internal;

import io.tandem.saga.SagaDefinition;
import io.tandem.saga.SagaDefinition.Step;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.StepKind;
import io.tandem.saga.internal.Transition.Send;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The compensating half of {@link SagaMachine}: undoing the completed compensatable steps, last
 * first (or all at once with {@code parallelCompensation}), retrying a failing compensation, and
 * giving up as {@link SagaStatus#STUCK}. Pure functions; thread-safe.
 */
final class Compensations {
  private Compensations() {}

  /** Compensates the compensatable steps at or below {@code from}, last first. */
  static Transition begin(
      SagaDefinition<?> def, SagaRow read, SagaRow row, int from, Instant now, String why) {
    List<Integer> targets = new ArrayList<>();
    for (int i = Math.min(from, def.steps().size() - 1); i >= 0; i--) {
      if (def.step(i).kind() == StepKind.COMPENSATABLE) {
        targets.add(i);
      }
    }
    String note = why + "; compensating";
    if (targets.isEmpty()) {
      SagaRow done = row.with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt());
      return new Transition(read, done.withWakeup(null), List.of(), note);
    }
    Instant timeout = now.plus(def.stepTimeout());
    SagaRow compensating = row.with(SagaStatus.COMPENSATING, targets.get(0), 1);
    if (def.parallelCompensation()) {
      List<Send> sends = targets.stream().map(i -> new Send(i, true, 1)).toList();
      return new Transition(
          read, compensating.withPending(targets).withWakeup(timeout), sends, note);
    }
    return new Transition(
        read,
        compensating.withPending(List.of()).withWakeup(timeout),
        List.of(new Send(targets.get(0), true, 1)),
        note);
  }

  static Transition onReply(
      SagaDefinition<?> def,
      SagaRow row,
      Step step,
      boolean succeeded,
      String reason,
      Instant now) {
    if (def.parallelCompensation()) {
      if (!row.pending().contains(step.index())) {
        return SagaMachine.unchanged(row, "compensation of " + step.name() + " is not pending");
      }
      if (!succeeded) {
        return failed(def, row, step, reason, now);
      }
      List<Integer> left = new ArrayList<>(row.pending());
      left.remove(Integer.valueOf(step.index()));
      SagaRow updated = row.withPending(left);
      SagaRow next =
          left.isEmpty()
              ? updated
                  .with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt())
                  .withWakeup(null)
              : updated;
      return new Transition(row, next, List.of(), null);
    }
    if (step.index() != row.stepIndex()) {
      return SagaMachine.unchanged(row, "compensation of " + step.name() + " is not current");
    }
    if (!succeeded) {
      return failed(def, row, step, reason, now);
    }
    for (int i = step.index() - 1; i >= 0; i--) {
      if (def.step(i).kind() == StepKind.COMPENSATABLE) {
        SagaRow moved = row.with(SagaStatus.COMPENSATING, i, 1);
        return new Transition(
            row,
            moved.withWakeup(now.plus(def.stepTimeout())),
            List.of(new Send(i, true, 1)),
            null);
      }
    }
    SagaRow done = row.with(SagaStatus.COMPENSATED, row.stepIndex(), row.attempt());
    return new Transition(row, done.withWakeup(null), List.of(), null);
  }

  /** A compensation's wake-up: its reply did not come in time, or its retry is due. */
  static Transition onTimer(SagaDefinition<?> def, SagaRow row, boolean timedOut, Instant now) {
    if (timedOut) {
      Step step = def.step(row.stepIndex());
      Transition failed = failed(def, row, step, "no reply within " + def.stepTimeout(), now);
      if (failed.next().status() == SagaStatus.STUCK) {
        return failed;
      }
    }
    SagaRow again = row.with(SagaStatus.COMPENSATING, row.stepIndex(), row.attempt() + 1);
    List<Send> sends =
        def.parallelCompensation()
            ? row.pending().stream().map(i -> new Send(i, true, again.attempt())).toList()
            : List.of(new Send(row.stepIndex(), true, again.attempt()));
    return new Transition(row, again.withWakeup(now.plus(def.stepTimeout())), sends, null);
  }

  /** An operator's retry of a STUCK instance: compensating again at once, fresh attempts. */
  static Transition retryStuck(SagaRow row, Instant now) {
    if (row.status() != SagaStatus.STUCK) {
      throw new IllegalStateException("saga " + row.id() + " is " + row.status() + ", not STUCK");
    }
    SagaRow back = row.with(SagaStatus.COMPENSATING, row.stepIndex(), 0).withWakeup(now);
    return new Transition(row, back, List.of(), "put back to compensating by an operator");
  }

  private static Transition failed(
      SagaDefinition<?> def, SagaRow row, Step step, String reason, Instant now) {
    String error =
        "compensation of " + step.name() + " failed (attempt " + row.attempt() + "): " + reason;
    if (row.attempt() >= def.compensationAttempts()) {
      SagaRow stuck =
          row.with(SagaStatus.STUCK, row.stepIndex(), row.attempt())
              .withError(error)
              .withWakeup(null);
      return new Transition(row, stuck, List.of(), error + "; STUCK, an operator must look");
    }
    Duration delay = def.retryPolicy().delayAfter(row.attempt());
    return new Transition(
        row,
        row.withError(error).withWakeup(now.plus(delay)),
        List.of(),
        error + "; again in " + delay);
  }
}
