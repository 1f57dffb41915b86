package io.tandem.inbox;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Applies delivered messages and returns each one's outcome, without settling any: one message in
 * its own transaction ({@link SingleMessage}), several in one ({@link InboxBatch}); with ordering
 * on, an applied event's parked successors follow ({@link ParkedDrainer}). Thread-safe.
 */
final class Applier {
  private final boolean ordered;
  private final SingleMessage single;
  private final ParkedDrainer drainer;
  private final InboxBatch batches;

  Applier(
      ConsumerParts parts,
      SingleMessage single,
      ParkedDrainer drainer,
      DeadLetterWriter deadLetters) {
    this.ordered = parts.ordered();
    this.single = single;
    this.drainer = drainer;
    this.batches = new InboxBatch(parts, this, deadLetters);
  }

  List<Outcome> apply(List<Decoded> messages, BooleanSupplier stopping) {
    if (messages.size() == 1) {
      return List.of(apply(messages.get(0), stopping, 0));
    }
    return batches.process(messages, stopping);
  }

  /** One message alone, after {@code failedBefore} failed handler attempts; then its drain. */
  Outcome apply(Decoded d, BooleanSupplier stopping, int failedBefore) {
    SingleMessage.Result r = single.apply(d, stopping, failedBefore);
    Outcome o = r.outcome();
    if (ordered && r.successorParked() && (o == Outcome.APPLIED || o == Outcome.SKIPPED)) {
      drain(d.event().aggregateType(), d.event().aggregateId(), stopping);
    }
    return o;
  }

  void drain(String type, String id, BooleanSupplier stopping) {
    drainer.drain(type, id, stopping);
  }

  SingleMessage single() {
    return single;
  }
}
