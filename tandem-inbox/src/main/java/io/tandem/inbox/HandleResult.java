package io.tandem.inbox;

/** What {@link Inbox#handle} did with one delivery. */
public enum HandleResult {
  /** First delivery to this consumer: the work ran and committed with the inbox record. */
  APPLIED,
  /** The consumer had processed this event id before: nothing ran. */
  DUPLICATE
}
