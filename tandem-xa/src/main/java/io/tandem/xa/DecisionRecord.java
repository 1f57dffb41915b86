package io.tandem.xa;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One row of the decision log.
 *
 * @param global the transaction
 * @param decision what was decided
 * @param participants the participants its branches are on
 * @param decidedBy {@code coordinator}, {@code recovery} or {@code operator:NAME}
 * @param decidedAt when
 * @param heuristic what went against the decision, when a branch was decided by someone else
 */
public record DecisionRecord(
    GlobalTransactionId global,
    XaDecision decision,
    List<String> participants,
    String decidedBy,
    Instant decidedAt,
    Optional<String> heuristic) {

  public DecisionRecord {
    participants = List.copyOf(participants);
  }
}
