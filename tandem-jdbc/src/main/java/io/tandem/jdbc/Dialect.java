package io.tandem.jdbc;

import io.tandem.core.TandemException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * The SQL of one database family. Every statement Tandem runs is a constant of a dialect, with bind
 * parameters; nothing is concatenated from input. A list parameter (row ids, partitions) is bound
 * with {@link #bindList}, as an array or a JSON document depending on the database; timestamps with
 * {@link #bindInstant} and {@link #readInstant}, which keep them exact whatever the JVM's time
 * zone.
 *
 * <p>Statements use the tables {@code tandem_outbox}, {@code tandem_inbox}, {@code
 * tandem_relay_partition} and {@code tandem_relay_instance} in the connection's current schema
 * (choose the schema with the JDBC URL: {@code currentSchema} on PostgreSQL, the database on
 * MariaDB).
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface Dialect {

  /** The number of relay partitions the schema defines (events are spread by aggregate). */
  int PARTITIONS = 64;

  /** The family name; also the folder of its migrations, {@code db/<name>/}. */
  String name();

  /** Binds a list of numbers (row ids, partitions, epochs) as one parameter. */
  void bindList(
      Connection connection, PreparedStatement ps, int index, Collection<? extends Number> values)
      throws SQLException;

  /**
   * Binds an instant to a timestamp parameter (such as {@code occurred_at} of {@link
   * #outboxInsert()}). The default binds an {@link OffsetDateTime} in UTC, exact for a {@code
   * timestamptz} column in any JVM time zone and for any date (a {@link Timestamp} would be
   * rendered in the Julian calendar before 1582).
   */
  default void bindInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
    }
  }

  /**
   * Reads a timestamp column of a Tandem table as an instant; null for SQL NULL. The counterpart of
   * {@link #bindInstant}. PostgreSQL's {@code infinity} and {@code -infinity} read as the instants
   * of {@link OffsetDateTime#MAX} and {@link OffsetDateTime#MIN}.
   */
  default Instant readInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /**
   * The isolation level of the relay's own short transactions (partition leases, publish results),
   * or empty to keep the connection's. They are written for READ COMMITTED, PostgreSQL's default.
   */
  default OptionalInt relayIsolation() {
    return OptionalInt.empty();
  }

  /**
   * The isolation level of a consumer's transactions (inbox, ordering guard, the handler's work),
   * or empty to keep the connection's. READ COMMITTED everywhere: PostgreSQL's default, and on
   * MariaDB it spares the consumer's parallel lanes the gap locks (and deadlocks) that REPEATABLE
   * READ takes around absent position rows.
   */
  default OptionalInt consumerIsolation() {
    return relayIsolation();
  }

  /**
   * A statement run first in the transaction that marks a batch published, relaxing its commit
   * durability where the database allows it per transaction; empty when it does not. A mark lost in
   * a database crash only makes the relay publish those events again (at least once), so the relay
   * need not wait for the disk, nor make writers wait behind its flushes.
   */
  default Optional<String> relayRecordPreamble() {
    return Optional.empty();
  }

  /**
   * Starts a listener that calls {@code onNotify} soon after new outbox rows commit, when the
   * database can push notifications (PostgreSQL's LISTEN/NOTIFY). Empty when it cannot: the relay
   * then relies on polling alone. The listener records under {@code relayId} (the relay's instance
   * row) whether it listens, so that writers notify only while some relay does.
   */
  default Optional<InsertNotifications> listenForOutboxInserts(
      DataSource dataSource, String relayId, Runnable onNotify, Duration reconnectDelay) {
    return Optional.empty();
  }

  // ---- outbox: append -------------------------------------------------------------------------

  /**
   * Inserts one event. Parameters: event_id, aggregate_type, aggregate_id, aggregate_version,
   * event_type, schema_version, payload (JSON text), headers (JSON text), occurred_at.
   */
  String outboxInsert();

  // ---- outbox: relay ------------------------------------------------------------------------

  /**
   * Reads due events of the given partitions, in row order, skipping every event that has an
   * earlier unpublished version of its aggregate that cannot go first (quarantined, waiting for a
   * retry, inserted later, or at or below the cursor). Only rows with an id above a cursor are
   * read: the relay skips the rows of batches it published and has not recorded yet, and an event
   * whose earlier version lies at or below the cursor waits for the next scan from the start.
   * Parameters: partitions (list), cursor (row id; 0 reads from the start), the same cursor again,
   * batch size. Columns: id, event_id, aggregate_type, aggregate_id, aggregate_version, event_type,
   * schema_version, payload, headers, occurred_at, attempts, partition_no.
   */
  String outboxClaim();

  /**
   * Marks acknowledged events published, fenced by partition ownership: only rows of partitions the
   * relay still owns, with the epoch it owns them under and a live lease. Parameters: relay id
   * (published_by), partitions (list), epochs (list, aligned with partitions), row ids (list),
   * relay id (owner).
   */
  String outboxMarkPublished();

  /**
   * Whether {@link #outboxMarkPublished()} may run alone in auto-commit mode, one round trip, when
   * a batch has nothing else to record: the statement relaxes its own commit as {@link
   * #relayRecordPreamble()} would and needs no particular isolation level. When false the relay
   * runs it in a transaction after the preamble.
   */
  default boolean outboxMarkPublishedStandsAlone() {
    return false;
  }

  /**
   * Schedules one event for a later attempt, fenced. Parameters: delay in milliseconds, last_error,
   * error_class, row id, relay id (owner), epoch of the row's partition.
   */
  String outboxRetryLater();

  /**
   * Quarantines one event, fenced. Parameters: last_error, error_class, row id, relay id (owner),
   * epoch of the row's partition.
   */
  String outboxQuarantine();

  // ---- relay partitions -----------------------------------------------------------------------

  /** Registers or refreshes a relay instance. Parameters: relay id, host. */
  String relayHeartbeat();

  /** Counts live relay instances. Parameter: liveness window in milliseconds. Column: count. */
  String relayLiveInstances();

  /** Extends the leases a relay still holds. Parameters: lease in milliseconds, relay id. */
  String relayRenew();

  /**
   * The partitions a relay holds with a live lease. Parameter: relay id. Columns: partition_no,
   * epoch.
   */
  String relayOwnedPartitions();

  /**
   * Locks up to n free or expired partitions, skipping locked ones. Parameter: n. Column:
   * partition_no.
   */
  String relayAcquireCandidates();

  /**
   * Takes the given partitions, bumping their epoch. Parameters: relay id, lease in milliseconds,
   * partitions (list).
   */
  String relayAcquire();

  /** Gives partitions back. Parameters: relay id, partitions (list). */
  String relayRelease();

  /** Removes a relay instance. Parameter: relay id. */
  String relayDeregister();

  /** Removes instances silent for longer than a window. Parameter: window in milliseconds. */
  String relayPurgeInstances();

  // ---- operations ---------------------------------------------------------------------------

  /**
   * Lists quarantined events. Parameter: limit. Columns: event_id, aggregate_type, aggregate_id,
   * aggregate_version, event_type, attempts, error_class, last_error, quarantined_at, created_at.
   */
  String opsListQuarantined();

  /** Puts one quarantined event back to pending. Parameter: event_id. */
  String opsReplay();

  /** Puts every quarantined event back to pending. */
  String opsReplayAll();

  /** Skips one unpublished event with a reason. Parameters: reason, event_id. */
  String opsSkip();

  /**
   * Backlog figures. Columns: pending (count), oldest_pending_age_ms, quarantined (count), skipped
   * (count), published (count).
   */
  String opsBacklog();

  /**
   * Partition ownership. Columns: partition_no, owner, epoch, lease_remaining_ms (negative when
   * expired, null when free), pending (count of due-or-waiting events in the partition).
   */
  String opsPartitions();

  /** Relay instances. Columns: relay_id, host, started_at, heartbeat_age_ms. */
  String opsInstances();

  /** How many events wait to be published (not quarantined, not skipped). One column. */
  default String opsPending() {
    return """
        SELECT count(*)
          FROM tandem_outbox
         WHERE published_at IS NULL AND quarantined_at IS NULL AND skipped_at IS NULL
        """;
  }

  /** Published events per relay, most first. Columns: published_by, published. */
  default String opsPublishedByRelay() {
    return """
        SELECT published_by, count(*) AS published
          FROM tandem_outbox
         WHERE published_at IS NOT NULL
         GROUP BY published_by
         ORDER BY count(*) DESC
        """;
  }

  /**
   * The newest published events' append and publish times, newest first; parameter: how many.
   * Columns: created_at, published_at (both the database's clock).
   */
  default String opsNewestPublished() {
    return """
        SELECT created_at, published_at
          FROM tandem_outbox
         WHERE published_at IS NOT NULL
         ORDER BY id DESC
         LIMIT ?
        """;
  }

  // ---- retention ----------------------------------------------------------------------------

  /**
   * The conservative watermark: the smallest id of a pending event, or one past the largest id when
   * nothing is pending. Column: watermark.
   */
  String retentionWatermark();

  /**
   * Counts what retention would delete. Parameters: age in milliseconds, watermark. Column: count.
   */
  String retentionCount();

  /**
   * Deletes one batch of published rows older than the policy and below the watermark. Parameters:
   * age in milliseconds, watermark, batch size.
   */
  String retentionDelete();

  // ---- inbox --------------------------------------------------------------------------------

  /**
   * Records that a consumer processed an event; affects one row the first time, none for a
   * duplicate. Parameters: consumer, event_id, aggregate_type, aggregate_id, aggregate_version,
   * event_type.
   */
  String inboxInsert();

  // ---- consumer: ordering guard, parked events, dead letters, retention -----------------------

  /**
   * Creates a consumer's position for an aggregate unless it exists; affects no row when it does.
   * Parameters: consumer, aggregate_type, aggregate_id, last_version, start_version (the same
   * value: where the position starts).
   */
  String positionCreate();

  /**
   * Reads and locks a consumer's position for an aggregate until the transaction ends. Parameters:
   * consumer, aggregate_type, aggregate_id. Column: last_version.
   */
  default String positionLock() {
    return PortableSql.POSITION_LOCK;
  }

  /**
   * Moves a position to the next version only if it is exactly one below (the common case, in one
   * statement that also locks the row); affects no row otherwise. Parameters: new last_version,
   * consumer, aggregate_type, aggregate_id, expected last_version.
   */
  default String positionAdvance() {
    return PortableSql.POSITION_ADVANCE;
  }

  /**
   * {@link #positionAdvance()} and {@link #inboxInsert()} in one statement, where the database can
   * (one round trip for the common in-order case); empty otherwise. Parameters: new last_version,
   * consumer, aggregate_type, aggregate_id, expected last_version, then the inbox insert's
   * parameters, then consumer, aggregate_type, aggregate_id and the next version for the parking.
   * Columns: advanced (0 or 1), recorded (0 or 1), successor_parked (whether the next version waits
   * in {@code tandem_inbox_parked}).
   */
  default Optional<String> positionAdvanceAndRecord() {
    return Optional.empty();
  }

  /** Moves a position forward. Parameters: last_version, consumer, aggregate_type, aggregate_id. */
  String positionUpdate();

  /**
   * What the ordering guard needs to judge an event at or below its aggregate's position (the rare
   * path): whether the consumer has seen its event id, where the position started, and an operator
   * advance over its version. Parameters: consumer, event_id, consumer, aggregate_type,
   * aggregate_id, consumer, aggregate_type, aggregate_id, aggregate_version, aggregate_version.
   * Columns: seen (count), start_version (null without a position), advance_id (null when none).
   */
  default String positionVersionProbe() {
    return PortableSql.VERSION_PROBE;
  }

  /**
   * Records an operator's advance of a position. Parameters: consumer, aggregate_type,
   * aggregate_id, from_version, to_version, reason, advanced_by. Generated key: id.
   */
  default String advanceInsert() {
    return PortableSql.ADVANCE_INSERT;
  }

  /**
   * A consumer's advances after an id, in id order. Parameters: consumer, after id, limit. Columns:
   * every column of {@code tandem_inbox_advance}.
   */
  default String advanceList() {
    return PortableSql.ADVANCE_LIST;
  }

  /**
   * The lowest parked version of an aggregate. Parameters: consumer, aggregate_type, aggregate_id.
   * Column: lowest (null when nothing is parked).
   */
  default String parkedLowest() {
    return PortableSql.PARKED_LOWEST;
  }

  /**
   * Keeps an event that arrived before its predecessor; affects no row when it is parked already.
   * Parameters: consumer, aggregate_type, aggregate_id, aggregate_version, event_id, event_type,
   * schema_version, payload, headers (JSON text), occurred_at, origin.
   */
  String parkedInsert();

  /**
   * The parked event of one version. Parameters: consumer, aggregate_type, aggregate_id,
   * aggregate_version. Columns: event_id, event_type, schema_version, payload, headers,
   * occurred_at, origin.
   */
  default String parkedFind() {
    return PortableSql.PARKED_FIND;
  }

  /**
   * Removes parked events at or below a version. Parameters: consumer, aggregate_type,
   * aggregate_id, aggregate_version.
   */
  default String parkedDelete() {
    return PortableSql.PARKED_DELETE;
  }

  /**
   * Aggregates whose parked events wait longer than a threshold for a predecessor, oldest first.
   * Parameters: consumer, age in milliseconds, limit. Columns: aggregate_type, aggregate_id,
   * last_version (null when nothing was applied), first_parked, parked (count), oldest_parked_at,
   * waiting_ms.
   */
  String parkedGaps();

  /**
   * Aggregates with a parked event that could be applied now (its predecessor is applied), left
   * behind by a consumer that stopped before applying it. Parameters: consumer, limit. Columns:
   * aggregate_type, aggregate_id.
   */
  default String parkedReady() {
    return PortableSql.PARKED_READY;
  }

  /**
   * Counts parked events and the age of the oldest. Parameter: consumer. Columns: parked, oldest_ms
   * (null when none).
   */
  String parkedSummary();

  /**
   * Records a dead letter. Parameters: consumer, reason_class, reason, attempts, origin,
   * raw_headers (JSON text), raw_body (bytes), event_id, aggregate_type, aggregate_id,
   * aggregate_version, event_type, event_json (the last six may be null).
   */
  String deadLetterInsert();

  /**
   * Lists a consumer's dead letters of one status after an id, in id order. Parameters: consumer,
   * status, after id, limit. Columns: every column of {@code tandem_dead_letter}.
   */
  default String deadLetterList() {
    return PortableSql.DEAD_LETTER_LIST;
  }

  /**
   * Reads and locks one dead letter. Parameters: id. Columns: every column of {@code
   * tandem_dead_letter}.
   */
  default String deadLetterLock() {
    return PortableSql.DEAD_LETTER_LOCK;
  }

  /** Resolves a dead letter. Parameters: new status, id. Affects one row only while it is DEAD. */
  String deadLetterResolve();

  /**
   * The oldest open dead letter holding an aggregate back. Parameters: consumer, aggregate_type,
   * aggregate_id. Columns: id, aggregate_version, reason.
   */
  default String deadLetterBlocking() {
    return PortableSql.DEAD_LETTER_BLOCKING;
  }

  /**
   * Every event id in the outbox (published, pending or quarantined), oldest first. No parameters.
   * Column: event_id.
   */
  default String opsEventIds() {
    return PortableSql.OPS_EVENT_IDS;
  }

  /** The ids of the events a consumer processed (its inbox records). Parameter: consumer. */
  default String inboxEventIds() {
    return PortableSql.INBOX_EVENT_IDS;
  }

  /** Counts a consumer's open dead letters. Parameter: consumer. Column: count. */
  default String deadLetterCount() {
    return PortableSql.DEAD_LETTER_COUNT;
  }

  /**
   * Counts processed-event records older than an age. Parameter: age in milliseconds. Column:
   * count.
   */
  String inboxRetentionCount();

  /**
   * Deletes one batch of processed-event records older than an age, oldest first. Parameters: age
   * in milliseconds, batch size.
   */
  String inboxRetentionDelete();

  // ---- sagas ------------------------------------------------------------------------------

  /**
   * Starts a saga instance. Parameters: saga_id, saga_type, status, step_index, attempt, pending,
   * data, wakeup_at, deadline_at, started_at, updated_at.
   */
  default String sagaInsert() {
    return PortableSql.SAGA_INSERT;
  }

  /**
   * Reads and locks one saga instance. Parameter: saga_id. Columns: every column of {@code
   * tandem_saga}.
   */
  default String sagaLock() {
    return PortableSql.SAGA_LOCK;
  }

  /** Reads one saga instance. Parameter: saga_id. */
  default String sagaGet() {
    return PortableSql.SAGA_GET;
  }

  /**
   * Moves a saga instance on, checking its version. Parameters: status, step_index, attempt,
   * pending, data, wakeup_at, last_error, updated_at, ended_at, saga_id, expected version.
   */
  default String sagaUpdate() {
    return PortableSql.SAGA_UPDATE;
  }

  /**
   * Locks instances whose wake-up time has come, skipping locked ones. Parameters: now, limit.
   * Column: saga_id.
   */
  default String sagaDue() {
    return PortableSql.SAGA_DUE;
  }

  /**
   * Lists instances by type and status (null for any) started before a time. Parameters: saga_type,
   * status, started before, limit.
   */
  default String sagaList() {
    return PortableSql.SAGA_LIST;
  }

  /** Ended instances older than a time. Parameters: ended before, limit. Column: saga_id. */
  default String sagaFinished() {
    return PortableSql.SAGA_FINISHED;
  }

  /** How many ended instances are older than a time. Parameter: ended before. */
  default String sagaFinishedCount() {
    return PortableSql.SAGA_FINISHED_COUNT;
  }

  /**
   * Instances per type and status, with the oldest last change of each group (the gauges of {@code
   * SagaMetrics}). No parameters. Columns: saga_type, status, instances, oldest_update.
   */
  default String sagaCounts() {
    return PortableSql.SAGA_COUNTS;
  }

  // ---- dashboard ----------------------------------------------------------------------------

  /**
   * Records an operator's action in the dashboard's audit log. Parameters: operator, remote,
   * action, target, outcome, detail.
   */
  default String dashboardActionInsert() {
    return PortableSql.DASHBOARD_ACTION_INSERT;
  }

  /**
   * The latest actions, newest first. Parameter: limit. Columns: id, acted_at, operator, remote,
   * action, target, outcome, detail.
   */
  default String dashboardActionList() {
    return PortableSql.DASHBOARD_ACTION_LIST;
  }

  /**
   * The name the step log last recorded for a step index of an instance. Parameters: saga_id,
   * step_index. Column: step.
   */
  default String sagaStepName() {
    return PortableSql.SAGA_STEP_NAME;
  }

  /**
   * The outbox headers of the last command an instance sent, while its outbox row is kept.
   * Parameter: saga_id. Column: headers (a JSON object).
   */
  default String sagaLastCommandHeaders() {
    return PortableSql.SAGA_LAST_COMMAND_HEADERS;
  }

  /** Deletes one ended instance (never a running one). Parameter: saga_id. */
  default String sagaDelete() {
    return PortableSql.SAGA_DELETE;
  }

  /** Deletes an instance's step log. Parameter: saga_id. */
  default String sagaStepDelete() {
    return PortableSql.SAGA_STEP_DELETE;
  }

  /** The next step log sequence number of an instance. Parameter: saga_id. */
  default String sagaStepNextSeq() {
    return PortableSql.SAGA_STEP_NEXT_SEQ;
  }

  /**
   * Logs a command sent. Parameters: saga_id, seq, step, step_index, kind, attempt, command_id,
   * command_type, started_at.
   */
  default String sagaStepInsert() {
    return PortableSql.SAGA_STEP_INSERT;
  }

  /**
   * Records the reply to a pending command. Parameters: outcome, reply_type, reply, ended_at,
   * saga_id, command_id.
   */
  default String sagaStepClose() {
    return PortableSql.SAGA_STEP_CLOSE;
  }

  /**
   * Closes every pending command of a step and kind (superseded or timed out). Parameters: outcome,
   * ended_at, saga_id, step_index, kind.
   */
  default String sagaStepClosePending() {
    return PortableSql.SAGA_STEP_CLOSE_PENDING;
  }

  /** An instance's step log in order. Parameter: saga_id. */
  default String sagaStepList() {
    return PortableSql.SAGA_STEP_LIST;
  }

  /**
   * Reads and locks a participant's record of a saga step. Parameters: participant, saga_id, step.
   * Columns: state, reply_type, reply.
   */
  default String participationLock() {
    return PortableSql.PARTICIPATION_LOCK;
  }

  /** How many saga steps a participant recorded. Parameter: participant. Column: the count. */
  default String participationCount() {
    return PortableSql.PARTICIPATION_COUNT;
  }

  /**
   * Records what a participant did for a saga step. Parameters: participant, saga_id, step, state,
   * reply_type, reply, updated_at.
   */
  default String participationInsert() {
    return PortableSql.PARTICIPATION_INSERT;
  }

  /**
   * Updates a participant's record of a saga step. Parameters: state, reply_type, reply,
   * updated_at, participant, saga_id, step.
   */
  default String participationUpdate() {
    return PortableSql.PARTICIPATION_UPDATE;
  }

  // ---- saga trail ---------------------------------------------------------------------------

  /**
   * The outbox events of one business transaction: those whose {@code correlationid} header equals
   * the parameter, by {@code occurred_at} then row id. Parameter: correlation id. Columns: id,
   * event_id, aggregate_type, aggregate_id, aggregate_version, event_type, occurred_at,
   * published_at. Without an index on the header this reads the whole outbox (see the saga trail's
   * documentation for the optional expression index).
   */
  String trailEvents();

  /**
   * The consumers of this database's inbox that recorded an event, by time. Parameter: event_id.
   * Columns: consumer, processed_at. The inbox's key leads with the consumer, so without an index
   * on {@code event_id} this reads the whole inbox.
   */
  default String trailConsumers() {
    return PortableSql.TRAIL_CONSUMERS;
  }

  /** Whether the SQLState means a unique or primary-key violation. */
  boolean isUniqueViolation(SQLException e);

  /** The dialect of the database behind {@code connection}. */
  static Dialect of(Connection connection) {
    String product;
    try {
      product = connection.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw new JdbcException("cannot read the database product name", e);
    }
    String p = product.toLowerCase(Locale.ROOT);
    if (p.contains("postgresql")) {
      return PostgresDialect.INSTANCE;
    }
    if (p.contains("mariadb") || p.contains("mysql")) {
      return MariaDbDialect.INSTANCE;
    }
    throw new TandemException(
        "Tandem has no dialect for database '"
            + product
            + "'; supported: PostgreSQL, MariaDB and MySQL");
  }

  /** The dialect of the database behind {@code dataSource}. */
  static Dialect of(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return of(c);
    } catch (SQLException e) {
      throw new JdbcException("cannot connect to detect the database dialect", e);
    }
  }
}
