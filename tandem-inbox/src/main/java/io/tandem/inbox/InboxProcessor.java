package io.tandem.inbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.core.InvalidEventException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.TandemException;
import io.tandem.core.spi.InboundMessage;
import io.tandem.inbox.internal.Sleeper;
import io.tandem.jdbc.Dialect;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * <p>One owner per message: {@link #apply} returns each message's outcome and settles nothing;
 * whoever received the message from the broker acknowledges it after that ({@link ConsumerRunner}
 * does; {@link #process} does it for a custom loop), so a message is acknowledged only after the
 * transaction that dealt with it committed (the fault point {@link
 * FaultInjector#CONSUMER_AFTER_COMMIT} lies between the two). A handler that throws (any exception,
 * or an {@link Error}) is retried in place with the {@link RetryPolicy}'s backoff; a {@link
 * PermanentHandlerException} (or an {@link InvalidEventException}, such as {@link Event#payloadAs}
 * throws for a payload that does not fit), a handler still failing after {@code maxAttempts}, a
 * message that is not a valid Tandem event and (by policy) an unsupported type or schema version go
 * to {@code tandem_dead_letter} with the raw message, the reason and the attempts — then the
 * message is settled and the stream flows on. Deadlocks and serialization failures are retried
 * without using up attempts, and so is every failure outside the handlers (the commit, the
 * consumer's own statements): such a message is never dead-lettered nor settled for it. With
 * ordering on, later events of a dead-lettered aggregate park until an operator {@link #replay
 * replays} or {@link #discard discards} it; {@link #gaps} says so. A version that will never arrive
 * (skipped at the producer) is passed with a recorded {@link #advance}. A database that cannot be
 * reached is waited for (with backoff) without using up attempts.
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
  static final Pattern CONSUMER_NAME = Pattern.compile("[A-Za-z0-9._:-]{1,200}");
  private static final BooleanSupplier INTERRUPTED = () -> Thread.currentThread().isInterrupted();

  private final ConsumerParts parts;
  private final Wiring wiring;

  private InboxProcessor(Builder b) {
    this.wiring = new Wiring(b);
    this.parts = wiring.parts;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The consumer name: the key of its inbox records, positions and dead letters. */
  public String consumer() {
    return parts.consumer();
  }

  /** Whether the ordering guard is on. */
  public boolean ordered() {
    return parts.ordered();
  }

  /**
   * Applies delivered messages together — in one local transaction for all of them, see {@link
   * InboxBatch} — and returns each message's outcome, in the order given, <em>without settling
   * any</em>: the caller owns the messages and acknowledges each whose outcome is not {@link
   * Outcome#ABANDONED}. A message whose handler fails is rolled back alone (the batch runs again
   * with a savepoint per handler call) and retried (then dead-lettered) alone after the others
   * committed. Blocks through retries; the calling thread's interrupt stops it.
   */
  public List<Outcome> apply(List<? extends InboundMessage> messages) {
    List<Decoded> decoded = new ArrayList<>(messages.size());
    messages.forEach(m -> decoded.add(Decoded.of(m)));
    return apply(decoded, INTERRUPTED);
  }

  List<Outcome> apply(List<Decoded> batch, BooleanSupplier stopping) {
    return wiring.applier.apply(batch, stopping);
  }

  /**
   * {@link #apply} for a loop that owns the messages, then settles them as {@link ConsumerRunner}
   * does: each message whose outcome is not {@link Outcome#ABANDONED} is acknowledged, after the
   * commit. Returns the outcomes in the order given.
   */
  public List<Outcome> process(List<? extends InboundMessage> messages) {
    List<Outcome> outcomes = apply(messages);
    wiring.settlement.settle(messages, outcomes, INTERRUPTED);
    return outcomes;
  }

  /**
   * Processes one delivered message to the end — applied, duplicate, parked, skipped or dead
   * lettered — and acknowledges it after the transaction that dealt with it committed; see {@link
   * #process(List)}.
   */
  public Outcome process(InboundMessage message) {
    return process(List.of(message)).get(0);
  }

  Attempts attempts() {
    return parts.attempts();
  }

  // ---- operations ---------------------------------------------------------------------------

  /**
   * Dead letters of this consumer with {@code status}, in id order after {@code afterId} (0 for the
   * first page), at most {@code limit} (1 to 10,000). {@link InboxOperations} reads the same
   * without the handlers.
   */
  public List<DeadLetter> deadLetters(DeadLetterStatus status, long afterId, int limit) {
    return wiring.operations.deadLetters(consumer(), status, afterId, limit);
  }

  /**
   * Applies a dead letter again through the normal path (ordering guard, inbox, handler) — for
   * instance after a handler fix or once a missing handler exists — and then marks it {@link
   * DeadLetterStatus#REPLAYED}. With ordering on, parked successors follow. If it fails again it
   * becomes a new dead letter and this one is marked replayed; the result says which.
   *
   * @throws IllegalArgumentException when no open dead letter of this consumer has that id
   * @throws TandemException when the message could not be decoded, so there is no event to apply
   */
  public Outcome replay(long deadLetterId) {
    return wiring.replay.replay(deadLetterId);
  }

  /**
   * Gives up on a dead letter for good: marks it {@link DeadLetterStatus#DISCARDED}. With ordering
   * on, the consumer's position moves past its version so that parked successors are applied (the
   * discarded event's effect never happens — an operator decision).
   */
  public void discard(long deadLetterId) {
    wiring.replay.discard(deadLetterId);
  }

  /**
   * Moves this consumer past versions of an aggregate that will never arrive, recorded with who and
   * why ({@link InboxOperations#advance}, which has the rules), then applies the parked successors
   * at once.
   */
  public InboxAdvance advance(
      String aggregateType, String aggregateId, long toVersion, String reason, String advancedBy) {
    if (!ordered()) {
      throw new IllegalStateException(
          "consumer " + consumer() + " does not order events; there is no position to advance");
    }
    InboxAdvance advance =
        wiring.operations.advance(
            consumer(), aggregateType, aggregateId, toVersion, reason, advancedBy);
    LOG.warn(
        "consumer {}: {} advanced {}/{} from version {} to {} without applying: {}",
        consumer(),
        advance.advancedBy(),
        aggregateType,
        aggregateId,
        advance.fromVersion(),
        advance.toVersion(),
        advance.reason());
    wiring.drainer.drain(aggregateType, aggregateId, () -> false);
    return advance;
  }

  /**
   * Applies parked events whose predecessor is applied already: those a consumer left behind when
   * it stopped (or died) between applying an event and applying its parked successors. A {@link
   * ConsumerRunner} calls it at start and periodically; safe to call at any time, from any thread.
   *
   * @return the number of aggregates it looked at
   */
  public int drainReady() {
    return wiring.drainer.drainReady(INTERRUPTED);
  }

  /**
   * Aggregates whose parked events have waited at least {@code olderThan} for a missing version,
   * oldest first, each with the reason (not delivered yet, or held by a dead letter).
   */
  public List<AggregateGap> gaps(Duration olderThan, int limit) {
    return wiring.operations.gaps(consumer(), olderThan, limit);
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
    return wiring.gapCheck.run();
  }

  /** Events applied (handler ran and committed) by this processor since it was built. */
  public long appliedCount() {
    return (long) parts.metrics().applied.count();
  }

  /** Deliveries recognised as duplicates. */
  public long duplicateCount() {
    return (long) parts.metrics().duplicates.count();
  }

  /** Events parked ahead of a missing predecessor. */
  public long parkedCount() {
    return (long) parts.metrics().parked.count();
  }

  /** Events skipped under {@link UnsupportedEventPolicy#SKIP}. */
  public long skippedCount() {
    return (long) parts.metrics().skipped.count();
  }

  /** Messages sent to the dead-letter table. */
  public long deadLetteredCount() {
    return parts.metrics().deadLettered.get();
  }

  /**
   * Events dead-lettered as {@link DeadLetterReason#VERSION_CONFLICT}: a never seen event id with a
   * version at or below the aggregate's position.
   */
  public long versionConflictCount() {
    return (long) parts.metrics().versionConflicts.count();
  }

  /** Handler attempts that failed (each retry counts). */
  public long failedAttempts() {
    return (long) parts.metrics().failedAttempts.count();
  }

  /**
   * Transactions that failed outside the handlers (the commit, the consumer's own statements) and
   * were retried without using up a message's attempts.
   */
  public long storeFailures() {
    return (long) parts.metrics().storeFailures.count();
  }

  /**
   * Builds an {@link InboxProcessor}; {@code dataSource}, {@code consumer} and at least one handler
   * are required.
   */
  public static final class Builder {
    DataSource dataSource;
    Dialect dialect;
    String consumer;
    final Map<String, Handlers.Handler> handlers = new HashMap<>();
    Handlers.Handler anyType;
    boolean ordered = true;
    boolean startAtFirstSeen;
    UnsupportedEventPolicy unknownTypes = UnsupportedEventPolicy.SKIP;
    UnsupportedEventPolicy newerSchemas = UnsupportedEventPolicy.DEAD_LETTER;
    RetryPolicy retryPolicy = DEFAULT_RETRY_POLICY;
    Duration gapAlertAfter = DEFAULT_GAP_ALERT_AFTER;
    FaultInjector faultInjector = FaultInjector.NONE;
    BiConsumer<Event, Outcome> afterCommit = (event, outcome) -> {};
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    Sleeper sleeper = Sleeper.SYSTEM;

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
      if (work == null) {
        throw new IllegalArgumentException("the handler of '" + eventType + "' must not be null");
      }
      return register(eventType, Handlers.Handler.checked(eventType, maxSchemaVersion, work, null));
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
      if (work == null) {
        throw new IllegalArgumentException(
            "the batch handler of '" + eventType + "' must not be null");
      }
      return register(eventType, Handlers.Handler.checked(eventType, maxSchemaVersion, null, work));
    }

    private Builder register(String eventType, Handlers.Handler handler) {
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
      this.anyType = new Handlers.Handler(maxSchemaVersion, work, null);
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

    /** How retries and backoffs wait; tests pass one that returns at once. Default: sleeping. */
    Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
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
      Wiring.validate(this);
      return new InboxProcessor(this);
    }
  }
}
