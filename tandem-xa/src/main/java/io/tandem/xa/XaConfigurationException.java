package io.tandem.xa;

import io.tandem.core.TandemException;
import java.util.List;

/**
 * The coordinator cannot run two-phase commit as configured: a participant refuses prepared
 * transactions, is a Galera node, lacks a privilege, or the decision log's table is missing. The
 * message lists every problem with what to change.
 */
public class XaConfigurationException extends TandemException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  public XaConfigurationException(List<String> problems) {
    super(
        "two-phase commit cannot start: "
            + (problems.size() == 1 ? problems.get(0) : String.join(" | ", problems)));
    this.problems = List.copyOf(problems);
  }

  /** Each problem found, with what to change. */
  public List<String> problems() {
    return problems;
  }
}
