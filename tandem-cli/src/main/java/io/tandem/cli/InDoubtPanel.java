package io.tandem.cli;

import io.tandem.core.ErrorSummary;
import io.tandem.xa.XaOperations;
import java.util.Map;

/**
 * The dashboard's view of two-phase commit: the prepared branches on the participants (Tandem's and
 * foreign), the decisions logged for them and the oldest in-doubt age — what {@code tandem xa
 * status --json} prints. Resolving stays a CLI action ({@code tandem xa resolve}), which asks.
 */
final class InDoubtPanel implements DashboardPanel {
  private final XaOperations xa;

  InDoubtPanel(XaOperations xa) {
    this.xa = xa;
  }

  @Override
  public String name() {
    return "inDoubt";
  }

  @Override
  public Object read() {
    try {
      return XaStatusJson.of(xa.status());
    } catch (RuntimeException e) {
      return Map.of("error", "cannot list the prepared branches: " + ErrorSummary.of(e));
    }
  }
}
