package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.InvalidEventException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.TandemException;
import io.tandem.core.Tracing;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.internal.BatchStore;
import io.tandem.inbox.internal.ConsumerStore;
import io.tandem.inbox.internal.ConsumerStore.ParkedEvent;
import io.tandem.inbox.internal.ConsumerStore.StoredDeadLetter;
import io.tandem.inbox.internal.EventJson;
import io.tandem.inbox.internal.Failures;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.JdbcException;
import io.tandem.jdbc.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies delivered events for one consumer, each in one local transaction with its inbox record:
 * every side effect once, per-aggregate order, and nothing lost or crashing the loop.
 *
 * <pre>{@code
 * InboxProcessor billing = InboxProcessor.builder()
 *     .dataSource(billingDataSource)
 *     .consumer("billing")
 *     .on("OrderPlaced", (conn, event) -> invoices.create(conn, event))
 *     .on("OrderCancelled", 2, (conn, event) -> invoices.cancel(conn, event))
 *     .build();
 * ConsumerRunner.builder().source(kafkaSource).processor(billing).build().start();
 * }</pre>
 *
 * <p>For each event, in one transaction:
 *
 * <ol>
 *   <li><b>Ordering guard</b> (on by default): the consumer's position for the event's aggregate is
 *       read and locked. A version at or below it is a duplicate (nothing runs) when its event id
 *       was applied before, lies before the position's start or was {@linkplain #advance advanced
 *       over}; otherwise another event took that version and it is dead-lettered as {@link
 *       DeadLetterReason#VERSION_CONFLICT}. A version more than one above it is <em>parked</em> in
 *       {@code tandem_inbox_parked} and the message acknowledged; the next version is applied, the
 *       position moves, and parked successors are then applied in order, each in its own
 *       transaction. Positions start at 0, so version 1 comes first (or at the first version seen,
 *       with {@link Builder#startAtFirstSeenVersion}).
 *   <li><b>Inbox</b>: the event id is recorded in {@code tandem_inbox}; an id seen before is a
 *       duplicate.
 *   <li><b>Handler</b> for the event type and schema version, on the same connection; it may append
 *       to the consumer's own outbox in the same transaction.
 * </ol>
 *
 * <p>The message is acknowledged only after that transaction committed (the fault point {@link
 * FaultInjector#CONSUMER_AFTER_COMMIT} lies between the two). A handler that throws (any exception,
 * or an {@link Error}) is retried in place with the {@link RetryPolicy}'s backoff; a {@link
 * PermanentHandlerException} (or an {@link InvalidEventException}, such as {@link Event#payloadAs}
 * throws for a payload that does not fit), a handler still failing after {@code maxAttempts}, a
 * message that is not a valid Tandem event and (by policy) an unsupported type or schema version go
 * to {@code tandem_dead_letter} with the raw message, the reason and the attempts — then the
 * message is acknowledged and the stream flows on. Deadlocks and serialization failures are retried
 * without using up attempts. With ordering on, later events of a dead-lettered aggregate park until
 * an operator {@link #replay replays} or {@link #discard discards} it; {@link #gaps} says so. A
 * version that will never arrive (skipped at the producer) is passed with a recorded {@link
 * #advance}. A database that cannot be reached is waited for (with backoff) without using up
 * attempts.
 *
 * <p>Defaults: ordering on, unknown event types {@link UnsupportedEventPolicy#SKIP}, newer schema
 * versions {@link UnsupportedEventPolicy#DEAD_LETTER}, {@link #DEFAULT_RETRY_POLICY}, gap alert
 * after {@link #DEFAULT_GAP_ALERT_AFTER}. Metrics {@code tandem.consumer.*} tagged {@code
 * consumer}. Thread-safe: a {@link ConsumerRunner} calls it from several worker threads.
 */
public final class InboxProcessor {
  /** 5 attempts, 100 ms base, 5 s cap, full jitter. */
  public static final RetryPolicy DEFAULT_RETRY_POLICY =
      RetryPolicy.builder()
          .base(Duration.ofMillis(100))
          .cap(Duration.ofSeconds(5))
          .maxAttempts(5)
          .build();

  public static final Duration DEFAULT_GAP_ALERT_AFTER = Duration.ofMinutes(5);

  private static final Logger LOG = LoggerFactory.getLogger(InboxProcessor.class);
  private static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
  private static final Duration MAX_UNAVAILABLE_WAIT = Duration.ofSeconds(5);
  static final int MAX_CONFLICT_RETRIES = 20;

  /** A message with its event decoded (or the reason it could not be). */
  record Decoded(InboundMessage message, Event event, RuntimeException invalid) {
    String laneKey() {
      if (event != null) {
        return event.aggregateType() + '\u0000' + event.aggregateId();
      }
      return message.key() != null ? message.key() : message.origin();
    }
  }

  /**
   * A registered handler: per event ({@code work}) or per batch ({@code batch}), one of the two.
   */
  record Handler(int maxSchemaVersion, InboxWork<?> work, InboxBatchWork batch) {
    void apply(Connection conn, Event event) throws Exception {
      if (batch != null) {
        batch.apply(conn, List.of(event));
      } else {
        work.apply(conn, event);
      }
    }
  }

  /** The event id was processed before although its version is new: nothing may change. */
  static final class AlreadyProcessed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AlreadyProcessed() {
      super(null, null, false, false);
    }
  }

  /** A handler that failed for good, with the dead-letter reason. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final DeadLetterReason reason;

    Refused(DeadLetterReason reason, String message, Throwable cause) {
      super(message, cause, false, false);
      this.reason = reason;
    }
  }

  private final DataSource dataSource;
  private final Dialect dialect;
  final ConsumerStore store;
  private final InboxOperations operations;
  private final String consumer;
  private final Map<String, Handler> handlers;
  private final Handler anyType;
  private final boolean ordered;
  private final boolean startAtFirstSeen;
  private final UnsupportedEventPolicy unknownTypes;
  private final UnsupportedEventPolicy newerSchemas;
  private final RetryPolicy retryPolicy;
  private final Duration gapAlertAfter;
  private final FaultInjector faultInjector;
  private final BiConsumer<Event, Outcome> afterCommit;
  private final Counters counters;
  final Tracing tracing = Tracing.get();
  private final InboxBatch batches;

  private InboxProcessor(Builder b) {
    this.dataSource = b.dataSource;
    this.dialect = b.dialect != null ? b.dialect : Dialect.of(b.dataSource);
    this.store = new ConsumerStore(dialect);
    this.operations = InboxOperations.create(dataSource, dialect);
    this.consumer = b.consumer;
    this.handlers = Map.copyOf(b.handlers);
    this.anyType = b.anyType;
    this.ordered = b.ordered;
    this.startAtFirstSeen = b.startAtFirstSeen;
    this.unknownTypes = b.unknownTypes;
    this.newerSchemas = b.newerSchemas;
    this.retryPolicy = b.retryPolicy;
    this.gapAlertAfter = b.gapAlertAfter;
    this.faultInjector = b.faultInjector;
    this.afterCommit = b.afterCommit;
    this.counters = new Counters(b.meterRegistry, consumer);
    this.batches = new InboxBatch(this, new BatchStore(dialect));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The consumer name: the key of its inbox records, positions and dead letters. */
  public String consumer() {
    return consumer;
  }

  /** Whether the ordering guard is on. */
  public boolean ordered() {
    return ordered;
  }

  boolean startAtFirstSeen() {
    return startAtFirstSeen;
  }

  /**
   * Processes delivered messages together — in one local transaction for all of them, see {@link
   * InboxBatch} — and acknowledges each after that transaction committed. The result holds each
   * message's outcome, in the order given. A message whose handler fails is rolled back to its own
   * savepoint and retried (then dead-lettered) alone after the others committed. Called by {@link
   * ConsumerRunner} with what a lane has (up to its {@code maxBatch}); usable by a custom loop.
   */
  public List<Outcome> process(List<? extends InboundMessage> messages) {
    List<Decoded> decoded = new java.util.ArrayList<>(messages.size());
    for (InboundMessage m : messages) {
      decoded.add(decode(m));
    }
    return process(decoded, () -> Thread.currentThread().isInterrupted());
  }

  List<Outcome> process(List<Decoded> batch, BooleanSupplier stopping) {
    if (batch.size() == 1) {
      return List.of(process(batch.get(0), stopping));
    }
    return batches.process(batch, stopping);
  }

  /**
   * Processes one delivered message to the end — applied, duplicate, parked, skipped or dead
   * lettered — and acknowledges it after the transaction that dealt with it committed. Blocks
   * through retries. Called by {@link ConsumerRunner}; usable directly by a custom loop.
   */
  public Outcome process(InboundMessage message) {
    return process(decode(message), () -> Thread.currentThread().isInterrupted());
  }

  Decoded decode(InboundMessage message) {
    try {
      return new Decoded(message, message.decode(), null);
    } catch (RuntimeException invalid) {
      return new Decoded(message, null, invalid);
    }
  }

  Outcome process(Decoded d, BooleanSupplier stopping) {
    return process(d, stopping, true);
  }

  Outcome process(Decoded d, BooleanSupplier stopping, boolean drain) {
    return process(d, stopping, drain, 0);
  }

  /** The one-message path, after {@code failedBefore} failed attempts (in a batch). */
  Outcome process(Decoded d, BooleanSupplier stopping, boolean drain, int failedBefore) {
    InboundMessage m = d.message();
    if (d.event() == null) {
      String reason = "not a valid Tandem event: " + Failures.describe(d.invalid());
      LOG.error("consumer {}: {} from {}; dead-lettering it", consumer, reason, m.origin());
      return deadLetter(m, null, DeadLetterReason.INVALID_MESSAGE, reason, 1, stopping);
    }
    // The event's trace continues here: events the handler appends carry this span's context.
    try (Tracing.Span span = tracing.startConsumer(d.event(), consumer, m.origin())) {
      Outcome outcome = process(m, d.event(), stopping, drain, failedBefore);
      span.outcome(outcome.name());
      return outcome;
    }
  }

  private Outcome process(
      InboundMessage m, Event event, BooleanSupplier stopping, boolean drain, int failedBefore) {
    int attempts = failedBefore;
    int unavailable = 0;
    int conflicts = 0;
    while (true) {
      Decision decision;
      try {
        decision = tx(conn -> applyIn(conn, event, m.origin()));
      } catch (AlreadyProcessed seen) {
        decision = new Decision(Outcome.DUPLICATE, false); // as the slow path: applied before
      } catch (Refused refused) {
        return deadLetter(m, event, refused.reason, refused.getMessage(), attempts + 1, stopping);
      } catch (FaultInjector.SimulatedCrash crash) {
        throw crash; // a drill's "kill": nothing more may happen in this process
      } catch (SQLException | RuntimeException | Error failure) {
        // An Error (a handler's StackOverflowError, AssertionError, NoClassDefFoundError, ...) is
        // the handler's failure like any other: retried, then dead-lettered, never left
        // unacknowledged to stall the aggregate (and, on Kafka, its partition) until a restart.
        if (Failures.transientConflict(failure) && conflicts < MAX_CONFLICT_RETRIES) {
          conflicts++; // a deadlock or serialization failure says nothing about the message
          LOG.debug("consumer {}: transaction conflict on {}; again", consumer, event.eventId());
          if (!pause(
              Duration.ofMillis(ThreadLocalRandom.current().nextLong(5, 50L * conflicts)),
              stopping)) {
            return Outcome.ABANDONED;
          }
          continue;
        }
        if (Failures.databaseUnavailable(failure)) {
          unavailable++;
          LOG.warn(
              "consumer {}: database unavailable while applying {} ({}); waiting",
              consumer,
              event.eventId(),
              Failures.describe(failure));
          if (!pause(unavailableDelay(unavailable), stopping)) {
            return Outcome.ABANDONED;
          }
          continue;
        }
        attempts++;
        counters.failedAttempts.increment();
        if (!retryPolicy.mayRetry(attempts)) {
          String reason = "handler failed " + attempts + " times: " + Failures.describe(failure);
          LOG.error("consumer {}: {} on {}; dead-lettering it", consumer, reason, event, failure);
          return deadLetter(
              m, event, DeadLetterReason.RETRIES_EXHAUSTED, reason, attempts, stopping);
        }
        LOG.warn(
            "consumer {}: handler failed on {} (attempt {}); retrying",
            consumer,
            event.eventId(),
            attempts,
            failure);
        if (!pause(retryPolicy.delayAfter(attempts), stopping)) {
          return Outcome.ABANDONED;
        }
        continue;
      }
      Outcome outcome = decision.outcome();
      settle(m, event, outcome);
      count(outcome);
      if ((outcome == Outcome.APPLIED || outcome == Outcome.SKIPPED)
          && ordered
          && drain
          && decision.successorParked()) {
        drainParked(event.aggregateType(), event.aggregateId(), stopping);
      }
      return outcome;
    }
  }

  /**
   * What one attempt's transaction decided: the outcome, and whether the next version of the
   * aggregate waits in the parking (read under the position's lock, so it cannot be parked by
   * anyone else before this commits): only then is a drain worth its transactions.
   */
  private record Decision(Outcome outcome, boolean successorParked) {}

  /** One attempt's transaction. */
  private Decision applyIn(Connection conn, Event event, String origin) throws SQLException {
    if (ordered) {
      // The common case: the position was one below; it moves (and stays locked) with the record.
      switch (store.advanceAndRecord(conn, consumer, event)) {
        case RECORDED -> {
          Outcome outcome = runHandler(conn, event);
          return new Decision(
              outcome,
              dialect.positionAdvanceAndRecord().isEmpty() && successorParked(conn, event));
        }
        case RECORDED_SUCCESSOR_PARKED -> {
          return new Decision(runHandler(conn, event), true);
        }
        case ALREADY_PROCESSED -> throw new AlreadyProcessed(); // same id, other version: undo
        case NOT_NEXT -> {} // decided below on the locked position
      }
    }
    if (ordered) {
      long initial = startAtFirstSeen ? event.aggregateVersion() - 1 : 0;
      long last =
          store.lockPosition(conn, consumer, event.aggregateType(), event.aggregateId(), initial);
      if (event.aggregateVersion() <= last) {
        return new Decision(atOrBelowPosition(conn, event, last), false);
      }
      if (event.aggregateVersion() > last + 1) {
        store.park(conn, consumer, event, origin);
        return new Decision(Outcome.PARKED, false);
      }
    }
    if (!store.recordProcessed(conn, consumer, event)) {
      return new Decision(Outcome.DUPLICATE, false);
    }
    Outcome outcome = runHandler(conn, event);
    if (ordered) {
      store.updatePosition(conn, consumer, event);
      return new Decision(outcome, successorParked(conn, event));
    }
    return new Decision(outcome, false);
  }

  /**
   * An event at or below its aggregate's position is a duplicate only if its id was applied (or it
   * lies before the position's start, or an operator advanced over its version). An event id never
   * seen with a version already taken is another event claiming that version — two producers
   * writing one aggregate, a reset sequence — and dropping it as a duplicate would lose it
   * silently.
   */
  Outcome atOrBelowPosition(Connection conn, Event event, long last) throws SQLException {
    ConsumerStore.VersionProbe probe = store.probe(conn, consumer, event);
    if (probe.seen() || event.aggregateVersion() <= probe.startVersion()) {
      return Outcome.DUPLICATE;
    }
    if (probe.advanceId().isPresent()) {
      LOG.info(
          "consumer {}: {}/{} version {} ({}) arrived after advance #{} moved past it; dropped",
          consumer,
          event.aggregateType(),
          event.aggregateId(),
          event.aggregateVersion(),
          event.eventId(),
          probe.advanceId().getAsLong());
      return Outcome.DUPLICATE;
    }
    throw new Refused(
        DeadLetterReason.VERSION_CONFLICT,
        "version "
            + event.aggregateVersion()
            + " of "
            + event.aggregateType()
            + "/"
            + event.aggregateId()
            + " is at or below the consumer's position ("
            + last
            + "), but its event id "
            + event.eventId()
            + " was never applied: another event already took that version (two producers"
            + " writing one aggregate, or a reset version sequence). Nothing was applied; compare"
            + " the two events at the producer, then discard this dead letter or publish the"
            + " change again under a new version",
        null);
  }

  private boolean successorParked(Connection conn, Event event) throws SQLException {
    return store
        .findParked(
            conn,
            consumer,
            event.aggregateType(),
            event.aggregateId(),
            event.aggregateVersion() + 1)
        .isPresent();
  }

  /** The handler for the event, or null when none takes it; see {@link #unsupported(Event)}. */
  Handler handlerFor(Event event) {
    Handler handler = handlers.getOrDefault(event.eventType(), anyType);
    if (handler == null || event.schemaVersion() > handler.maxSchemaVersion()) {
      return null;
    }
    return handler;
  }

  /** What happens to an event no handler takes: SKIPPED, or a {@link Refused} thrown. */
  Outcome unsupported(Event event) {
    Handler handler = handlers.getOrDefault(event.eventType(), anyType);
    if (handler == null) {
      return unsupported(
          unknownTypes,
          DeadLetterReason.UNKNOWN_EVENT_TYPE,
          "no handler for event type '" + event.eventType() + "'");
    }
    return unsupported(
        newerSchemas,
        DeadLetterReason.UNSUPPORTED_SCHEMA_VERSION,
        "schema version "
            + event.schemaVersion()
            + " of '"
            + event.eventType()
            + "' is newer than the handler's "
            + handler.maxSchemaVersion());
  }

  /**
   * Runs the handler; a refusal becomes {@link Refused}, a checked exception {@link
   * HandlerFailure}.
   */
  static void call(Handler handler, Connection conn, Event event) {
    try {
      handler.apply(conn, event);
    } catch (PermanentHandlerException | InvalidEventException refused) {
      throw refused(refused);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new HandlerFailure(e);
    }
  }

  /** Runs a batch handler on {@code events}, with the same translation as {@link #call}. */
  static void callBatch(Handler handler, Connection conn, List<Event> events) {
    try {
      handler.batch().apply(conn, events);
    } catch (PermanentHandlerException | InvalidEventException refused) {
      throw refused(refused);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new HandlerFailure(e);
    }
  }

  private static Refused refused(RuntimeException refused) {
    return new Refused(
        DeadLetterReason.HANDLER_REFUSED,
        "handler refused the event: " + Failures.describe(refused),
        refused);
  }

  private Outcome runHandler(Connection conn, Event event) {
    Handler handler = handlers.getOrDefault(event.eventType(), anyType);
    if (handler == null) {
      return unsupported(
          unknownTypes,
          DeadLetterReason.UNKNOWN_EVENT_TYPE,
          "no handler for event type '" + event.eventType() + "'");
    }
    if (event.schemaVersion() > handler.maxSchemaVersion()) {
      return unsupported(
          newerSchemas,
          DeadLetterReason.UNSUPPORTED_SCHEMA_VERSION,
          "schema version "
              + event.schemaVersion()
              + " of '"
              + event.eventType()
              + "' is newer than the handler's "
              + handler.maxSchemaVersion());
    }
    call(handler, conn, event);
    return Outcome.APPLIED;
  }

  private static Outcome unsupported(
      UnsupportedEventPolicy policy, DeadLetterReason reason, String message) {
    if (policy == UnsupportedEventPolicy.SKIP) {
      return Outcome.SKIPPED;
    }
    throw new Refused(reason, message, null);
  }

  boolean mayRetry(int attempts) {
    return retryPolicy.mayRetry(attempts);
  }

  Duration retryDelay(int attempts) {
    return retryPolicy.delayAfter(attempts);
  }

  /**
   * Dead-letters a message whose processing kept failing outside the handler (a {@link
   * ConsumerRunner} lane's last resort), then acknowledges it.
   */
  Outcome deadLetterFailure(Decoded d, Throwable failure, int attempts, BooleanSupplier stopping) {
    String reason = "processing failed " + attempts + " times: " + Failures.describe(failure);
    return deadLetter(
        d.message(), d.event(), DeadLetterReason.RETRIES_EXHAUSTED, reason, attempts, stopping);
  }

  /** Applies parked successors of an aggregate, in order, each in its own transaction. */
  void drainParked(String type, String id, BooleanSupplier stopping) {
    while (!stopping.getAsBoolean()) {
      Optional<ParkedEvent> next;
      try {
        next =
            tx(
                conn -> {
                  long last = store.lockPosition(conn, consumer, type, id, 0);
                  store.deleteParked(conn, consumer, type, id, last);
                  return store.findParked(conn, consumer, type, id, last + 1);
                });
      } catch (SQLException | RuntimeException e) {
        LOG.warn("consumer {}: could not read parked events of {}/{}", consumer, type, id, e);
        return; // they stay parked; the next applied event of the aggregate tries again
      }
      if (next.isEmpty()) {
        return;
      }
      ParkedEvent parked = next.get();
      Outcome outcome =
          process(new Decoded(new ParkedMessage(parked), parked.event(), null), stopping, false);
      if (outcome != Outcome.APPLIED && outcome != Outcome.SKIPPED) {
        return; // a dead letter now holds the aggregate, or we are stopping
      }
    }
  }

  Outcome deadLetter(
      InboundMessage m,
      Event event,
      DeadLetterReason reason,
      String text,
      int attempts,
      BooleanSupplier stopping) {
    int failures = 0;
    while (true) {
      try {
        tx(
            conn -> {
              if (m instanceof ParkedMessage parked) {
                store.deleteParked(
                    conn,
                    consumer,
                    parked.event().aggregateType(),
                    parked.event().aggregateId(),
                    parked.event().aggregateVersion());
              }
              store.insertDeadLetter(
                  conn,
                  consumer,
                  reason,
                  text,
                  attempts,
                  m.origin(),
                  m.rawHeaders(),
                  m.rawBody(),
                  event);
              return null;
            });
        break;
      } catch (SQLException | RuntimeException e) {
        failures++;
        LOG.warn(
            "consumer {}: could not write the dead letter for {}; retrying",
            consumer,
            m.origin(),
            e);
        if (!pause(unavailableDelay(failures), stopping)) {
          return Outcome.ABANDONED;
        }
      }
    }
    settle(m, event, Outcome.DEAD_LETTERED);
    counters.deadLettered(reason);
    return Outcome.DEAD_LETTERED;
  }

  /** After the commit that dealt with {@code m}: the fault point, the commit hook, the ack. */
  void settle(InboundMessage m, Event event, Outcome outcome) {
    faultInjector.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    if (event != null) {
      afterCommit.accept(event, outcome);
    }
    try {
      m.acknowledge();
    } catch (RuntimeException e) {
      LOG.warn(
          "consumer {}: acknowledging {} failed; the broker will deliver it again and the inbox"
              + " will recognise it",
          consumer,
          m.origin(),
          e);
    }
  }

  void countFailedAttempt() {
    counters.failedAttempts.increment();
  }

  void count(Outcome outcome) {
    switch (outcome) {
      case APPLIED -> counters.applied.increment();
      case DUPLICATE -> counters.duplicates.increment();
      case PARKED -> counters.parked.increment();
      case SKIPPED -> counters.skipped.increment();
      default -> {}
    }
  }

  static Duration unavailableDelay(int failures) {
    long millis = Math.min(MAX_UNAVAILABLE_WAIT.toMillis(), 100L << Math.min(failures, 10));
    return Duration.ofMillis(millis);
  }

  /** Waits {@code delay} unless stopping; false when stopping cut it short. */
  static boolean pause(Duration delay, BooleanSupplier stopping) {
    long deadline = System.nanoTime() + delay.toNanos();
    while (!stopping.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return true;
      }
      try {
        Thread.sleep(Math.min(50, Math.max(1, left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  // ---- operations ---------------------------------------------------------------------------

  /**
   * Dead letters of this consumer with {@code status}, in id order after {@code afterId} (0 for the
   * first page), at most {@code limit} (1 to 10,000). {@link InboxOperations} reads the same
   * without the handlers.
   */
  public List<DeadLetter> deadLetters(DeadLetterStatus status, long afterId, int limit) {
    return operations.deadLetters(consumer, status, afterId, limit);
  }

  /**
   * Applies a dead letter again through the normal path (ordering guard, inbox, handler) — for
   * instance after a handler fix or once a missing handler exists — and marks it {@link
   * DeadLetterStatus#REPLAYED} when it was applied (or turned out to be a duplicate). With ordering
   * on, parked successors follow. If it fails again it becomes a new dead letter and this one is
   * marked replayed; the result says which.
   *
   * @throws IllegalArgumentException when no open dead letter of this consumer has that id
   * @throws TandemException when the message could not be decoded, so there is no event to apply
   */
  public Outcome replay(long deadLetterId) {
    StoredDeadLetter stored = open(deadLetterId);
    if (stored.eventJson().isEmpty()) {
      throw new TandemException(
          "dead letter #"
              + deadLetterId
              + " holds a message that is not a valid Tandem event ("
              + stored.letter().reason()
              + "); there is no event to replay. Publish a corrected event, then discard this"
              + " one.");
    }
    Event event = EventJson.read(stored.eventJson().get());
    DeadLetter letter = stored.letter();
    ReplayedMessage message = new ReplayedMessage(letter, deadLetterId);
    return process(new Decoded(message, event, null), () -> false);
  }

  /**
   * Gives up on a dead letter for good: marks it {@link DeadLetterStatus#DISCARDED}. With ordering
   * on, the consumer's position moves past its version so that parked successors are applied (the
   * discarded event's effect never happens — an operator decision).
   */
  public void discard(long deadLetterId) {
    StoredDeadLetter stored = open(deadLetterId);
    Optional<Event> event = stored.eventJson().map(EventJson::read);
    read(
        conn -> {
          if (!store.resolveDeadLetter(conn, deadLetterId, DeadLetterStatus.DISCARDED)) {
            throw new IllegalStateException("dead letter #" + deadLetterId + " is no longer DEAD");
          }
          if (ordered && event.isPresent()) {
            Event e = event.get();
            long last = store.lockPosition(conn, consumer, e.aggregateType(), e.aggregateId(), 0);
            if (e.aggregateVersion() == last + 1) {
              store.recordProcessed(conn, consumer, e);
              store.updatePosition(conn, consumer, e);
            }
          }
          return null;
        });
    event.ifPresent(e -> drainParked(e.aggregateType(), e.aggregateId(), () -> false));
  }

  /**
   * Moves this consumer past versions of an aggregate that will never arrive, recorded with who and
   * why ({@link InboxOperations#advance}, which has the rules), then applies the parked successors
   * at once.
   */
  public InboxAdvance advance(
      String aggregateType, String aggregateId, long toVersion, String reason, String advancedBy) {
    if (!ordered) {
      throw new IllegalStateException(
          "consumer " + consumer + " does not order events; there is no position to advance");
    }
    InboxAdvance advance =
        operations.advance(consumer, aggregateType, aggregateId, toVersion, reason, advancedBy);
    LOG.warn(
        "consumer {}: {} advanced {}/{} from version {} to {} without applying: {}",
        consumer,
        advance.advancedBy(),
        aggregateType,
        aggregateId,
        advance.fromVersion(),
        advance.toVersion(),
        advance.reason());
    drainParked(aggregateType, aggregateId, () -> false);
    return advance;
  }

  private StoredDeadLetter open(long id) {
    Optional<StoredDeadLetter> stored = read(conn -> store.lockDeadLetter(conn, id));
    if (stored.isEmpty() || !stored.get().letter().consumer().equals(consumer)) {
      throw new IllegalArgumentException(
          "consumer " + consumer + " has no dead letter #" + id + "; list them with deadLetters()");
    }
    if (stored.get().letter().status() != DeadLetterStatus.DEAD) {
      throw new IllegalStateException(
          "dead letter #" + id + " is " + stored.get().letter().status() + " already");
    }
    return stored.get();
  }

  /**
   * Applies parked events whose predecessor is applied already: those a consumer left behind when
   * it stopped (or died) between applying an event and applying its parked successors. A {@link
   * ConsumerRunner} calls it at start and periodically; safe to call at any time, from any thread.
   *
   * @return the number of aggregates it looked at
   */
  public int drainReady() {
    List<String[]> ready = read(conn -> store.readyAggregates(conn, consumer, 1000));
    for (String[] aggregate : ready) {
      drainParked(aggregate[0], aggregate[1], () -> Thread.currentThread().isInterrupted());
    }
    return ready.size();
  }

  /**
   * Aggregates whose parked events have waited at least {@code olderThan} for a missing version,
   * oldest first, each with the reason (not delivered yet, or held by a dead letter).
   */
  public List<AggregateGap> gaps(Duration olderThan, int limit) {
    return operations.gaps(consumer, olderThan, limit);
  }

  /**
   * Re-reads the parked and dead-letter figures into the gauges {@code tandem.consumer.parked},
   * {@code tandem.consumer.gaps.overdue} (aggregates waiting longer than the gap alert), {@code
   * tandem.consumer.gap.oldest.seconds} and {@code tandem.consumer.dead_letters}; logs a warning
   * for each overdue gap. A {@link ConsumerRunner} calls it periodically.
   *
   * @return the overdue gaps
   */
  public List<AggregateGap> checkGaps() {
    List<AggregateGap> overdue = gaps(gapAlertAfter, 100);
    ConsumerStore.ParkedSummary summary = read(conn -> store.parkedSummary(conn, consumer));
    long dead = read(conn -> store.countDeadLetters(conn, consumer));
    counters.parkedNow.set(summary.parked());
    counters.oldestGapSeconds.set(summary.oldest().map(Duration::toSeconds).orElse(0L));
    counters.overdueGaps.set(overdue.size());
    counters.deadLettersNow.set(dead);
    for (AggregateGap gap : overdue) {
      LOG.warn(
          "consumer {}: aggregate {}/{}: {}",
          consumer,
          gap.aggregateType(),
          gap.aggregateId(),
          gap.explanation());
    }
    return overdue;
  }

  <T> T tx(io.tandem.jdbc.TransactionWork<T, SQLException> work) throws SQLException {
    return Transactions.inTransaction(dataSource, dialect.consumerIsolation(), work);
  }

  private <T> T read(io.tandem.jdbc.TransactionWork<T, SQLException> work) {
    try {
      return tx(work);
    } catch (SQLException e) {
      throw new JdbcException("consumer " + consumer + ": reading the consumer tables failed", e);
    }
  }

  /** Events applied (handler ran and committed) by this processor since it was built. */
  public long appliedCount() {
    return (long) counters.applied.count();
  }

  /** Deliveries recognised as duplicates. */
  public long duplicateCount() {
    return (long) counters.duplicates.count();
  }

  /** Events parked ahead of a missing predecessor. */
  public long parkedCount() {
    return (long) counters.parked.count();
  }

  /** Events skipped under {@link UnsupportedEventPolicy#SKIP}. */
  public long skippedCount() {
    return (long) counters.skipped.count();
  }

  /** Messages sent to the dead-letter table. */
  public long deadLetteredCount() {
    return counters.deadLettered.get();
  }

  /**
   * Events dead-lettered as {@link DeadLetterReason#VERSION_CONFLICT}: a never seen event id with a
   * version at or below the aggregate's position.
   */
  public long versionConflictCount() {
    return (long) counters.versionConflicts.count();
  }

  /** Handler attempts that failed (each retry counts). */
  public long failedAttempts() {
    return (long) counters.failedAttempts.count();
  }

  /** A checked exception from a handler, carried through the transaction helper. */
  static final class HandlerFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HandlerFailure(Exception cause) {
      super(cause.toString(), cause);
    }
  }

  /** A parked event being applied: there is no broker message to settle any more. */
  private record ParkedMessage(ParkedEvent parked) implements InboundMessage {
    Event event() {
      return parked.event();
    }

    @Override
    public String key() {
      return parked.event().aggregateId();
    }

    @Override
    public String origin() {
      return parked.origin() + " (parked)";
    }

    @Override
    public Map<String, String> rawHeaders() {
      return Map.of();
    }

    @Override
    public byte[] rawBody() {
      return EventJson.write(parked.event()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public Event decode() {
      return parked.event();
    }

    @Override
    public void acknowledge() {}
  }

  /** A dead letter being replayed: settling it marks it REPLAYED. */
  private final class ReplayedMessage implements InboundMessage {
    private final DeadLetter letter;
    private final long id;

    ReplayedMessage(DeadLetter letter, long id) {
      this.letter = letter;
      this.id = id;
    }

    @Override
    public String key() {
      return letter.aggregateId();
    }

    @Override
    public String origin() {
      return "dead letter #" + id + " (" + letter.origin() + ")";
    }

    @Override
    public Map<String, String> rawHeaders() {
      return letter.rawHeaders();
    }

    @Override
    public byte[] rawBody() {
      return letter.rawBody();
    }

    @Override
    public Event decode() {
      throw new UnsupportedOperationException("replayed from its stored envelope");
    }

    @Override
    public void acknowledge() {
      read(conn -> store.resolveDeadLetter(conn, id, DeadLetterStatus.REPLAYED));
    }
  }

  private static final class Counters {
    final Counter applied;
    final Counter duplicates;
    final Counter parked;
    final Counter skipped;
    final Counter failedAttempts;
    final Counter versionConflicts;
    final AtomicLong deadLettered = new AtomicLong();
    final AtomicLong parkedNow = new AtomicLong();
    final AtomicLong overdueGaps = new AtomicLong();
    final AtomicLong oldestGapSeconds = new AtomicLong();
    final AtomicLong deadLettersNow = new AtomicLong();
    private final MeterRegistry meters;
    private final String consumer;
    private final Map<DeadLetterReason, Counter> deadLetterCounters = new HashMap<>();

    Counters(MeterRegistry meters, String consumer) {
      this.meters = meters;
      this.consumer = consumer;
      applied = counter("tandem.consumer.applied", "Events whose handler ran and committed");
      duplicates = counter("tandem.consumer.duplicates", "Deliveries recognised as duplicates");
      parked =
          counter(
              "tandem.consumer.parkings",
              "Events parked ahead of a gap (the gauge tandem.consumer.parked: parked now)");
      skipped = counter("tandem.consumer.skipped", "Events no handler takes, skipped by policy");
      failedAttempts = counter("tandem.consumer.failed.attempts", "Handler attempts that failed");
      versionConflicts =
          counter(
              "tandem.consumer.version.conflicts",
              "Events whose version was taken by another event, dead-lettered");
      gauge("tandem.consumer.parked", "Events parked now", parkedNow);
      gauge("tandem.consumer.gaps.overdue", "Aggregates waiting past the gap alert", overdueGaps);
      gauge(
          "tandem.consumer.gap.oldest.seconds", "Age of the oldest parked event", oldestGapSeconds);
      gauge("tandem.consumer.dead_letters", "Open dead letters", deadLettersNow);
    }

    private Counter counter(String name, String description) {
      return Counter.builder(name)
          .description(description)
          .tag("consumer", consumer)
          .register(meters);
    }

    private void gauge(String name, String description, AtomicLong value) {
      Gauge.builder(name, value, AtomicLong::get)
          .description(description)
          .tag("consumer", consumer)
          .register(meters);
    }

    synchronized void deadLettered(DeadLetterReason reason) {
      deadLettered.incrementAndGet();
      if (reason == DeadLetterReason.VERSION_CONFLICT) {
        versionConflicts.increment();
      }
      deadLetterCounters
          .computeIfAbsent(
              reason,
              r ->
                  Counter.builder("tandem.consumer.dead_lettered")
                      .description("Messages sent to the dead-letter table")
                      .tag("consumer", consumer)
                      .tag("reason", r.name())
                      .register(meters))
          .increment();
    }
  }

  /**
   * Builds an {@link InboxProcessor}; {@code dataSource}, {@code consumer} and at least one handler
   * are required.
   */
  public static final class Builder {
    private DataSource dataSource;
    private Dialect dialect;
    private String consumer;
    private final Map<String, Handler> handlers = new HashMap<>();
    private Handler anyType;
    private boolean ordered = true;
    private boolean startAtFirstSeen;
    private UnsupportedEventPolicy unknownTypes = UnsupportedEventPolicy.SKIP;
    private UnsupportedEventPolicy newerSchemas = UnsupportedEventPolicy.DEAD_LETTER;
    private RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
    private Duration gapAlertAfter = DEFAULT_GAP_ALERT_AFTER;
    private FaultInjector faultInjector = FaultInjector.NONE;
    private BiConsumer<Event, Outcome> afterCommit = (event, outcome) -> {};
    private MeterRegistry meterRegistry = new SimpleMeterRegistry();

    private Builder() {}

    /** The consumer's own database (migrated with {@code Migrations.migrate}). Required. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** The database family; detected from the data source when not set. */
    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /**
     * The consumer's stable name, e.g. {@code billing}: 1 to 200 letters, digits, '.', '_', ':' or
     * '-'. Required.
     */
    public Builder consumer(String consumer) {
      this.consumer = consumer;
      return this;
    }

    /** Handles events of {@code eventType} with schema version 1. */
    public Builder on(String eventType, InboxWork<?> work) {
      return on(eventType, 1, work);
    }

    /** Handles events of {@code eventType} up to schema version {@code maxSchemaVersion}. */
    public Builder on(String eventType, int maxSchemaVersion, InboxWork<?> work) {
      if (eventType == null || eventType.isBlank()) {
        throw new IllegalArgumentException("eventType must not be blank");
      }
      if (maxSchemaVersion < 1) {
        throw new IllegalArgumentException(
            "maxSchemaVersion of '" + eventType + "' must be at least 1, was " + maxSchemaVersion);
      }
      if (work == null) {
        throw new IllegalArgumentException("the handler of '" + eventType + "' must not be null");
      }
      return register(eventType, new Handler(maxSchemaVersion, work, null));
    }

    /** Handles events of {@code eventType} with schema version 1, a batch at a time. */
    public Builder onBatch(String eventType, InboxBatchWork work) {
      return onBatch(eventType, 1, work);
    }

    /**
     * Handles events of {@code eventType} up to schema version {@code maxSchemaVersion} with one
     * call per batch (for bulk writes): the events of the batch that are new to the consumer and of
     * this type, in per-aggregate version order. A single event (a parked one, a replay, a retry)
     * comes as a list of one. See {@link InboxBatchWork}.
     */
    public Builder onBatch(String eventType, int maxSchemaVersion, InboxBatchWork work) {
      if (eventType == null || eventType.isBlank()) {
        throw new IllegalArgumentException("eventType must not be blank");
      }
      if (maxSchemaVersion < 1) {
        throw new IllegalArgumentException(
            "maxSchemaVersion of '" + eventType + "' must be at least 1, was " + maxSchemaVersion);
      }
      if (work == null) {
        throw new IllegalArgumentException(
            "the batch handler of '" + eventType + "' must not be null");
      }
      return register(eventType, new Handler(maxSchemaVersion, null, work));
    }

    private Builder register(String eventType, Handler handler) {
      if (handlers.putIfAbsent(eventType, handler) != null) {
        throw new IllegalArgumentException("event type '" + eventType + "' has a handler already");
      }
      return this;
    }

    /**
     * Handles every event type without a handler of its own, up to schema version {@code
     * maxSchemaVersion}.
     */
    public Builder onAnyEventType(int maxSchemaVersion, InboxWork<?> work) {
      if (work == null || maxSchemaVersion < 1) {
        throw new IllegalArgumentException(
            "onAnyEventType needs a handler and a maxSchemaVersion of at least 1");
      }
      this.anyType = new Handler(maxSchemaVersion, work, null);
      return this;
    }

    /**
     * Whether to apply each aggregate's events in version order (default true). Turn it off for
     * handlers that do not care about order; the inbox still drops duplicates.
     */
    public Builder ordered(boolean ordered) {
      this.ordered = ordered;
      return this;
    }

    /**
     * With ordering on, take the first version seen of an aggregate as its start instead of waiting
     * for version 1 (for a consumer that joins a stream whose beginning the broker no longer
     * holds). Default false.
     */
    public Builder startAtFirstSeenVersion(boolean startAtFirstSeen) {
      this.startAtFirstSeen = startAtFirstSeen;
      return this;
    }

    /** Events of a type without a handler; default {@link UnsupportedEventPolicy#SKIP}. */
    public Builder unknownEventTypes(UnsupportedEventPolicy policy) {
      this.unknownTypes = policy;
      return this;
    }

    /**
     * Events whose schema version is newer than their handler's; default {@link
     * UnsupportedEventPolicy#DEAD_LETTER} (replay them once the handler is upgraded).
     */
    public Builder newerSchemaVersions(UnsupportedEventPolicy policy) {
      this.newerSchemas = policy;
      return this;
    }

    /** Attempts and backoff for a failing handler; default {@link #DEFAULT_RETRY_POLICY}. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * How long a parked event may wait for its predecessor before {@link #checkGaps} reports the
     * gap (metric and warning); default 5 minutes.
     */
    public Builder gapAlertAfter(Duration gapAlertAfter) {
      this.gapAlertAfter = gapAlertAfter;
      return this;
    }

    /** Fault points for drills; default {@link FaultInjector#NONE}. */
    public Builder faultInjector(FaultInjector faultInjector) {
      this.faultInjector = faultInjector;
      return this;
    }

    /**
     * Called on the processing thread after the transaction that dealt with a decoded message
     * committed and before the message is acknowledged, with the event and what happened to it
     * (once per message, also in a batch). It must return quickly; default: nothing.
     */
    public Builder afterCommit(BiConsumer<Event, Outcome> afterCommit) {
      this.afterCommit = afterCommit;
      return this;
    }

    /** Where {@code tandem.consumer.*} metrics go; default a private in-memory registry. */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = meterRegistry;
      return this;
    }

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the first missing or invalid parameter
     */
    public InboxProcessor build() {
      if (dataSource == null) {
        throw new IllegalArgumentException("dataSource is required");
      }
      if (consumer == null || !CONSUMER_NAME.matcher(consumer).matches()) {
        throw new IllegalArgumentException(
            "consumer name '"
                + consumer
                + "' is invalid: use 1 to 200 letters, digits, '.', '_', ':' or '-' (it keys the"
                + " consumer's inbox records, positions and dead letters, so keep it stable)");
      }
      if (handlers.isEmpty() && anyType == null) {
        throw new IllegalArgumentException(
            "no handler: register at least one with on(eventType, work) or onAnyEventType");
      }
      if (unknownTypes == null || newerSchemas == null) {
        throw new IllegalArgumentException("unsupported-event policies must not be null");
      }
      if (retryPolicy == null
          || faultInjector == null
          || meterRegistry == null
          || afterCommit == null) {
        throw new IllegalArgumentException(
            "retryPolicy, faultInjector, afterCommit and meterRegistry must not be null");
      }
      if (gapAlertAfter == null || gapAlertAfter.isNegative() || gapAlertAfter.isZero()) {
        throw new IllegalArgumentException(
            "gapAlertAfter must be a positive duration, was " + gapAlertAfter);
      }
      return new InboxProcessor(this);
    }
  }
}
