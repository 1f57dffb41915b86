package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.inbox.internal.AggregateKey;

/** One decoded message of a batch and what the batch's transaction decided for it. */
final class BatchEntry {
  final int index;
  final Decoded decoded;
  final Event event;
  final AggregateKey key;
  Outcome outcome; // final outcome when committed; null while undecided or deferred
  boolean deferred; // left to the one-message path after the commit
  Refused refused; // deferred with a dead-letter verdict
  int failedAttempts;
  BatchEntry copyOf; // the first copy of this event id in the batch, for a later copy
  boolean batchCallFailed; // a batch handler's call with it failed in an earlier run: kept

  BatchEntry(int index, Decoded decoded) {
    this.index = index;
    this.decoded = decoded;
    this.event = decoded.event();
    this.key = new AggregateKey(event.aggregateType(), event.aggregateId());
  }

  /** Forgets what an earlier, rolled back run of the transaction decided. */
  void reset() {
    outcome = null;
    deferred = false;
    refused = null;
    failedAttempts = 0;
  }

  void defer() {
    outcome = null;
    deferred = true;
  }

  void refuse(Refused refused) {
    defer();
    this.refused = refused;
  }
}
