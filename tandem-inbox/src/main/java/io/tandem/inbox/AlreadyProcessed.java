package io.tandem.inbox;

/** The event id was processed before although its version is new: the transaction rolls back. */
final class AlreadyProcessed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  AlreadyProcessed() {
    super(null, null, false, false);
  }
}
