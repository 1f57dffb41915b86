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
 * One database family: how to bind lists and instants, which isolation levels to use, and the
 * statements Tandem runs, grouped by area. Each area is a typed statement object that binds its own
 * parameters ({@link #outbox()}, {@link #leases()}, {@link #operations()}); the inbox statements
 * are still text constants here, with their parameters named in each Javadoc. Nothing is
 * concatenated from input. A list parameter (row ids, partitions) is bound with {@link #bindList},
 * as an array or a JSON document depending on the database; timestamps with {@link #bindInstant}
 * and {@link #readInstant}, which keep them exact whatever the JVM's time zone.
 *
 * <pre>{@code
 * Dialect dialect = Dialect.of(dataSource);   // PostgreSQL, or MariaDB/MySQL
 * try (Connection c = dataSource.getConnection()) {
 *   long pending = dialect.operations().pending(c);
 * }
 * }</pre>
 *
 * <p>Statements use Tandem's tables ({@code tandem_outbox}, {@code tandem_inbox}, {@code
 * tandem_relay_partition}, ...) in the connection's current schema (choose the schema with the JDBC
 * URL: {@code currentSchema} on PostgreSQL, the database on MariaDB).
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
   * OutboxStatements#insert}). The default binds an {@link OffsetDateTime} in UTC, exact for a
   * {@code timestamptz} column in any JVM time zone and for any date (a {@link Timestamp} would be
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
   * Starts a listener that calls {@code onNotify} soon after new outbox rows commit, when the
   * database can push notifications (PostgreSQL's LISTEN/NOTIFY). Empty when it cannot: the relay
   * then relies on polling alone. The listener records under {@code relayId} (the relay's instance
   * row) whether it listens, so that writers notify only while some relay does.
   */
  default Optional<InsertNotifications> listenForOutboxInserts(
      DataSource dataSource, String relayId, Runnable onNotify, Duration reconnectDelay) {
    return Optional.empty();
  }

  // ---- the statements, by area -----------------------------------------------------------------

  /** The statements on outbox rows: the writer's insert, the relay's reads and marks. */
  OutboxStatements outbox();

  /** The relays' statements on partition leases and relay instances. */
  LeaseStatements leases();

  /** The operators' statements on the outbox: quarantine, status figures, retention. */
  OperationStatements operations();

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
