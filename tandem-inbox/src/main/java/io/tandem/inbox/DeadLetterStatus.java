package io.tandem.inbox;

import java.util.Set;

/**
 * The life of a dead letter: it is {@code DEAD} until an operator replays it (applied after all) or
 * discards it. Both end states are final; rows are never deleted automatically.
 */
public enum DeadLetterStatus {
  DEAD,
  REPLAYED,
  DISCARDED;

  /** Whether a dead letter may move from this status to {@code next}. */
  public boolean canBecome(DeadLetterStatus next) {
    return this == DEAD && Set.of(REPLAYED, DISCARDED).contains(next);
  }
}
