package io.tandem.outbox.internal;

/** One row of the relay's read: an event to publish, or a row to quarantine. */
public sealed interface ClaimedRow permits ClaimedEvent, UndecodableRow {
  /** The row's id. */
  long rowId();
}
