package io.tandem.xa;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/**
 * The lifecycle of one branch of a two-phase transaction, as the coordinator knows it. The whole
 * lifecycle is the one transition table below; {@link #next(BranchEvent)} refuses anything else.
 *
 * <pre>
 * ACTIVE    --PREPARED-->    PREPARED   --COMMITTED-->  COMMITTED
 * ACTIVE    --COMMITTED-->   COMMITTED  (one-phase: the only writer)
 * ACTIVE    --ROLLED_BACK--> ROLLED_BACK
 * ACTIVE    --NO_ANSWER-->   IN_DOUBT   (perhaps prepared: rolled back, or presumed aborted later)
 * PREPARED  --ROLLED_BACK--> ROLLED_BACK
 * PREPARED  --NO_ANSWER-->   IN_DOUBT
 * PREPARED  --HEURISTIC-->   HEURISTIC
 * IN_DOUBT  --COMMITTED | ROLLED_BACK | HEURISTIC | NO_ANSWER--> COMMITTED | ROLLED_BACK | HEURISTIC | IN_DOUBT
 * </pre>
 *
 * COMMITTED, ROLLED_BACK and HEURISTIC are terminal. A branch commits only from PREPARED or
 * IN_DOUBT (phase 2, after the decision) or from ACTIVE in one phase.
 */
public enum BranchState {
  /** Started on its connection; the application's work runs in it. */
  ACTIVE,
  /** Voted yes; holds its locks until phase 2. */
  PREPARED,
  /** An operation on it got no answer; it is retried, or left to recovery. */
  IN_DOUBT,
  /** Committed. */
  COMMITTED,
  /** Rolled back. */
  ROLLED_BACK,
  /** Decided by someone other than Tandem, possibly against Tandem's decision: reported loudly. */
  HEURISTIC;

  private static final Map<BranchState, Map<BranchEvent, BranchState>> TRANSITIONS =
      new EnumMap<>(BranchState.class);

  static {
    on(ACTIVE, BranchEvent.PREPARED, PREPARED);
    on(ACTIVE, BranchEvent.COMMITTED, COMMITTED);
    on(ACTIVE, BranchEvent.ROLLED_BACK, ROLLED_BACK);
    on(ACTIVE, BranchEvent.NO_ANSWER, IN_DOUBT);
    on(PREPARED, BranchEvent.COMMITTED, COMMITTED);
    on(PREPARED, BranchEvent.ROLLED_BACK, ROLLED_BACK);
    on(PREPARED, BranchEvent.NO_ANSWER, IN_DOUBT);
    on(PREPARED, BranchEvent.HEURISTIC, HEURISTIC);
    on(IN_DOUBT, BranchEvent.COMMITTED, COMMITTED);
    on(IN_DOUBT, BranchEvent.ROLLED_BACK, ROLLED_BACK);
    on(IN_DOUBT, BranchEvent.NO_ANSWER, IN_DOUBT);
    on(IN_DOUBT, BranchEvent.HEURISTIC, HEURISTIC);
  }

  private static void on(BranchState from, BranchEvent event, BranchState to) {
    TRANSITIONS.computeIfAbsent(from, f -> new EnumMap<>(BranchEvent.class)).put(event, to);
  }

  /**
   * The state after {@code event}.
   *
   * @throws IllegalStateException when the table has no such transition (for example a terminal
   *     state, or a heuristic report about a branch that was never prepared)
   */
  public BranchState next(BranchEvent event) {
    BranchState to = TRANSITIONS.getOrDefault(this, Map.of()).get(event);
    if (to == null) {
      throw new IllegalStateException(
          "a branch in state " + this + " cannot take " + event + "; allowed: " + allowed());
    }
    return to;
  }

  /** The events this state accepts (none for a terminal state). */
  public Set<BranchEvent> allowed() {
    return Collections.unmodifiableSet(TRANSITIONS.getOrDefault(this, Map.of()).keySet());
  }

  /** Whether nothing more can happen to the branch. */
  public boolean isTerminal() {
    return allowed().isEmpty();
  }
}
