package io.tandem.inbox;

import io.tandem.core.Event;
import io.tandem.core.Tracing;
import io.tandem.inbox.Attempts.Done;
import io.tandem.inbox.Attempts.Ending;
import io.tandem.inbox.Attempts.Exhausted;
import io.tandem.inbox.Attempts.Rejected;
import io.tandem.inbox.OrderingGuard.Decision;
import io.tandem.inbox.internal.Failures;
import io.tandem.inbox.internal.PositionStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;

/**
 * One message in its own transaction: ordering guard, inbox record, handler — with the {@link
 * Attempts} retry policy, then the dead letter when the handler keeps failing or refuses. Returns
 * what committed; never settles the message. Thread-safe.
 */
final class SingleMessage {
  /** What committed for the message, and whether its aggregate's next version waits parked. */
  record Result(Outcome outcome, boolean successorParked) {
    static final Result DUPLICATE = new Result(Outcome.DUPLICATE, false);
  }

  private final String consumer;
  private final boolean ordered;
  private final OrderingGuard guard;
  private final PositionStore positions;
  private final Handlers handlers;
  private final Attempts attempts;
  private final DeadLetterWriter deadLetters;
  private final AfterCommit afterCommit;
  private final ConsumerMetrics metrics;
  private final Tracing tracing;

  SingleMessage(ConsumerParts parts, OrderingGuard guard, DeadLetterWriter deadLetters) {
    this.consumer = parts.consumer();
    this.ordered = parts.ordered();
    this.guard = guard;
    this.positions = new PositionStore(parts.dialect());
    this.handlers = parts.handlers();
    this.attempts = parts.attempts();
    this.deadLetters = deadLetters;
    this.afterCommit = parts.afterCommit();
    this.metrics = parts.metrics();
    this.tracing = parts.tracing();
  }

  /** Applies {@code d} to the end, after {@code failedBefore} failed handler attempts. */
  Result apply(Decoded d, BooleanSupplier stopping, int failedBefore) {
    if (d.event() == null) {
      String reason = "not a valid Tandem event: " + Failures.describe(d.invalid());
      return new Result(
          deadLetters.write(d, DeadLetterReason.INVALID_MESSAGE, reason, 1, stopping), false);
    }
    // The event's trace continues here: events the handler appends carry this span's context.
    try (Tracing.Span span = tracing.startConsumer(d.event(), consumer, d.message().origin())) {
      Result result = attempt(d, stopping, failedBefore);
      span.outcome(result.outcome().name());
      return result;
    }
  }

  private Result attempt(Decoded d, BooleanSupplier stopping, int failedBefore) {
    Event event = d.event();
    String origin = d.message().origin();
    Ending<Result> ending =
        attempts.run(
            "on " + event.eventId(),
            conn -> transaction(conn, event, origin),
            failedBefore,
            false,
            stopping);
    Result result;
    if (ending instanceof Done<Result> done) {
      result = done.value();
    } else if (ending instanceof Rejected<Result> rejected
        && rejected.verdict() instanceof Refused refused) {
      return new Result(
          deadLetters.write(
              d, refused.reason, refused.getMessage(), rejected.failedAttempts() + 1, stopping),
          false);
    } else if (ending instanceof Rejected<Result>) {
      result = Result.DUPLICATE; // processed before under another version
    } else if (ending instanceof Exhausted<Result> exhausted) {
      String reason =
          "handler failed "
              + exhausted.attempts()
              + " times: "
              + Failures.describe(exhausted.failure());
      return new Result(
          deadLetters.write(
              d, DeadLetterReason.RETRIES_EXHAUSTED, reason, exhausted.attempts(), stopping),
          false);
    } else {
      return new Result(Outcome.ABANDONED, false); // stopping: nothing committed
    }
    afterCommit.committed(event, result.outcome());
    metrics.count(result.outcome());
    return result;
  }

  /** One attempt's transaction. */
  private Result transaction(Connection conn, Event event, String origin) throws SQLException {
    if (!ordered) {
      if (!positions.recordProcessed(conn, consumer, event)) {
        return Result.DUPLICATE;
      }
      return new Result(handlers.run(conn, event), false);
    }
    Decision decision = guard.admit(conn, event, origin);
    switch (decision.verdict()) {
      case RECORDED:
        return new Result(handlers.run(conn, event), decision.successorParked());
      case NEXT:
        if (!positions.recordProcessed(conn, consumer, event)) {
          return Result.DUPLICATE;
        }
        Outcome outcome = handlers.run(conn, event);
        return new Result(outcome, guard.moveTo(conn, event));
      case DUPLICATE:
        return Result.DUPLICATE;
      case PARKED:
        return new Result(Outcome.PARKED, false);
      case ALREADY_PROCESSED:
        throw new AlreadyProcessed(); // same id, other version: undo the moved position
      default:
        throw decision.conflict();
    }
  }
}
