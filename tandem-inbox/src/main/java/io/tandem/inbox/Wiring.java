package io.tandem.inbox;

import io.tandem.core.Tracing;
import io.tandem.jdbc.Dialect;

/** The parts of one {@link InboxProcessor}, built from its settings and connected once. */
final class Wiring {
  final ConsumerParts parts;
  final InboxOperations operations;
  final DeadLetterWriter deadLetters;
  final ParkedDrainer drainer;
  final Applier applier;
  final DeadLetterReplay replay;
  final Settlement settlement;
  final GapCheck gapCheck;

  Wiring(InboxProcessor.Builder b) {
    Dialect dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    ConsumerMetrics metrics = new ConsumerMetrics(b.meterRegistry, b.consumer);
    Attempts attempts =
        new Attempts(b.dataSource, dialect, b.consumer, b.retryPolicy, b.sleeper, metrics);
    this.parts =
        new ConsumerParts(
            b.consumer,
            b.dataSource,
            dialect,
            b.ordered,
            b.startAtFirstSeen,
            new Handlers(b.handlers, b.anyType, b.unknownTypes, b.newerSchemas),
            attempts,
            new AfterCommit(b.consumer, b.faultInjector, b.afterCommit),
            metrics,
            Tracing.get());
    this.operations = InboxOperations.create(b.dataSource, dialect);
    this.deadLetters =
        new DeadLetterWriter(b.consumer, dialect, attempts, parts.afterCommit(), metrics);
    OrderingGuard guard = new OrderingGuard(dialect, b.consumer, b.startAtFirstSeen);
    SingleMessage single = new SingleMessage(parts, guard, deadLetters);
    this.drainer = new ParkedDrainer(parts, single);
    this.applier = new Applier(parts, single, drainer, deadLetters);
    this.replay = new DeadLetterReplay(parts, applier);
    this.settlement = new Settlement(b.consumer, attempts, () -> {});
    this.gapCheck = new GapCheck(parts, operations, b.gapAlertAfter);
  }

  static void validate(InboxProcessor.Builder b) {
    if (b.dataSource == null) {
      throw new IllegalArgumentException("dataSource is required");
    }
    if (b.consumer == null || !InboxProcessor.CONSUMER_NAME.matcher(b.consumer).matches()) {
      throw new IllegalArgumentException(
          "consumer name '"
              + b.consumer
              + "' is invalid: use 1 to 200 letters, digits, '.', '_', ':' or '-' (it keys the"
              + " consumer's inbox records, positions and dead letters, so keep it stable)");
    }
    if (b.handlers.isEmpty() && b.anyType == null) {
      throw new IllegalArgumentException(
          "no handler: register at least one with on(eventType, work) or onAnyEventType");
    }
    if (b.unknownTypes == null || b.newerSchemas == null) {
      throw new IllegalArgumentException("unsupported-event policies must not be null");
    }
    if (b.retryPolicy == null
        || b.faultInjector == null
        || b.meterRegistry == null
        || b.sleeper == null
        || b.afterCommit == null) {
      throw new IllegalArgumentException(
          "retryPolicy, faultInjector, afterCommit, meterRegistry and sleeper must not be null");
    }
    if (b.gapAlertAfter == null || b.gapAlertAfter.isNegative() || b.gapAlertAfter.isZero()) {
      throw new IllegalArgumentException(
          "gapAlertAfter must be a positive duration, was " + b.gapAlertAfter);
    }
  }
}
