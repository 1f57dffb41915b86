package io.tandem.jdbc;

import io.tandem.core.TandemException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL of one database family. Every statement Tandem runs is a constant of a dialect, with bind
 * parameters; nothing is concatenated from input.
 *
 * <p>Statements use the table names {@code tandem_outbox} and {@code tandem_inbox} in the
 * connection's current schema (set the schema with the JDBC URL, e.g. {@code currentSchema} on
 * PostgreSQL).
 *
 * <p>Implementations are stateless and thread-safe.
 */
public interface Dialect {

  /** The family name; also the folder of its migrations, {@code db/<name>/}. */
  String name();

  /**
   * Inserts one event. Parameters: event_id, aggregate_type, aggregate_id, aggregate_version,
   * event_type, schema_version, payload (JSON text), headers (JSON text), occurred_at.
   */
  String outboxInsert();

  /**
   * Claims due events for one relay and returns them. Parameters: batch size, relay id, lease in
   * milliseconds. Rows come back in any order; sort by {@code id}.
   */
  String outboxClaim();

  /** Marks claimed events published. Parameters: relay id, array of row ids. */
  String outboxMarkPublished();

  /**
   * Releases one event for a later attempt. Parameters: delay in milliseconds, last_error,
   * error_class, row id, relay id.
   */
  String outboxRetryLater();

  /** Quarantines one event. Parameters: last_error, error_class, row id, relay id. */
  String outboxQuarantine();

  /**
   * Records that a consumer processed an event; affects one row the first time, none for a
   * duplicate. Parameters: consumer, event_id, aggregate_type, aggregate_id, aggregate_version,
   * event_type.
   */
  String inboxInsert();

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
    throw new TandemException(
        "Tandem has no dialect for database '" + product + "'; supported: PostgreSQL");
  }
}
