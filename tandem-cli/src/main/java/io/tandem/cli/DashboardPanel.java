package io.tandem.cli;

/**
 * A part of the dashboard that reads something beyond the outbox, inbox and sagas of its database
 * (a CDC slot, the in-doubt branches of two-phase commits): shown in {@code /api/overview} under
 * {@link #name()}, and on the page when present.
 */
interface DashboardPanel {
  /** The key in the overview, e.g. {@code cdc}. */
  String name();

  /** What the panel shows now, as JSON-ready maps and lists; a failure is its own answer. */
  Object read();
}
