package io.tandem.saga.internal;

import io.tandem.saga.SagaStatus;
import java.util.List;

/**
 * What one input does to a saga instance: the row to write back (same version as read: the write
 * checks it) and the commands to send in the same transaction. Built only by {@link SagaMachine},
 * which checks every status change against {@link SagaStatus}'s transition table (the one table of
 * the saga lifecycle).
 *
 * @param from the row as read; null for a start
 * @param next the row to write
 * @param sends the commands to send, in order
 * @param note why, for the log; null when there is nothing to say
 */
public record Transition(SagaRow from, SagaRow next, List<Send> sends, String note) {
  /** One command to send: the step's forward command or its compensation, and its attempt. */
  public record Send(int stepIndex, boolean compensation, int attempt) {}

  public Transition {
    sends = List.copyOf(sends);
    if (from != null && from.status() != next.status() && !from.status().canBecome(next.status())) {
      throw new IllegalStateException(
          "saga " + next.id() + ": illegal transition " + from.status() + " -> " + next.status());
    }
  }

  /** Whether anything is to be written or sent (a stale reply changes nothing). */
  public boolean changed() {
    return from == null || !from.equals(next) || !sends.isEmpty();
  }

  /** Whether this transition ends the saga (COMPLETED, COMPENSATED) or leaves it STUCK. */
  public boolean ends() {
    return statusChanged() && (next.status().terminal() || next.status() == SagaStatus.STUCK);
  }

  /** Whether the status changes (a start counts). */
  public boolean statusChanged() {
    return from == null || from.status() != next.status();
  }
}
