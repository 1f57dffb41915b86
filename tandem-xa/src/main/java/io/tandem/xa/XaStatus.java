package io.tandem.xa;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What {@link XaOperations#status()} read: every prepared branch of every participant (Tandem's and
 * foreign), how each participant answered, and the decision log's records.
 *
 * @param at when it was read
 */
public record XaStatus(
    Instant at,
    List<PreparedBranch> branches,
    List<ParticipantStatus> participants,
    List<DecisionRecord> decisions) {

  public XaStatus {
    branches = List.copyOf(branches);
    participants = List.copyOf(participants);
    decisions = List.copyOf(decisions);
  }

  /** Tandem's prepared branches (any node). */
  public List<PreparedBranch> tandemBranches() {
    return branches.stream().filter(b -> !b.foreign()).toList();
  }

  /** The age of the oldest of Tandem's prepared branches; empty when there is none. */
  public Optional<Duration> oldestInDoubt() {
    return tandemBranches().stream()
        .map(b -> b.age(at))
        .flatMap(Optional::stream)
        .max(Duration::compareTo);
  }

  /** Decision records that note a heuristic outcome (kept until an operator clears them). */
  public List<DecisionRecord> heuristics() {
    return decisions.stream().filter(d -> d.heuristic().isPresent()).toList();
  }
}
