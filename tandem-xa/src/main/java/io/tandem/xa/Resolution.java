package io.tandem.xa;

import java.util.Map;
import java.util.Optional;

/**
 * What {@link XaOperations#resolve} did.
 *
 * @param transaction the transaction resolved
 * @param action what the operator decided
 * @param loggedBefore the decision the log held before (empty: none, presumed abort)
 * @param branches each participant with a branch of it, and what that branch answered ({@code
 *     COMMITTED}, {@code ROLLED_BACK}, or the error)
 */
public record Resolution(
    GlobalTransactionId transaction,
    XaDecision action,
    Optional<XaDecision> loggedBefore,
    Map<String, String> branches) {

  public Resolution {
    branches = Map.copyOf(branches);
  }

  /** Whether every branch answered as asked. */
  public boolean complete() {
    String wanted = action == XaDecision.COMMIT ? "COMMITTED" : "ROLLED_BACK";
    return branches.values().stream().allMatch(wanted::equals);
  }
}
