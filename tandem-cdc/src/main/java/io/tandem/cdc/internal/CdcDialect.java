package io.tandem.cdc.internal;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.MariaDbDialect;

/**
 * The statements the CDC relay runs against its own database, one implementation per database
 * ({@link PostgresCdcDialect}, {@link MariaDbCdcDialect}). Lists of row ids bind through {@link
 * #jdbc()}'s {@link Dialect#bindList}, instants through its {@link Dialect#bindInstant} and {@link
 * Dialect#readInstant}; everything else about a record (how it becomes an event) is shared.
 */
public interface CdcDialect {
  /** The database dialect of the outbox, for binding lists and instants and reading rows. */
  Dialect jdbc();

  /** Whether the database has replication slots the relay reads (PostgreSQL) or none (MariaDB). */
  boolean replicationSlots();

  /**
   * Whether the change stream carries only committed transactions (PostgreSQL: pgoutput decodes a
   * transaction after its commit record; two-phase decoding is off). Then a streamed row a new
   * snapshot does not show yet is committed all the same: the commit record reaches the WAL, and
   * the stream, a moment before the commit becomes visible to other sessions. MariaDB's binlog
   * carries XA branches at PREPARE, so there a row the table lacks was never committed.
   */
  boolean streamsOnlyCommitted();

  /** Marks acknowledged rows published. Parameters: relay id, row ids (a list). */
  String markPublished();

  /** Parameters: delay in ms, last_error, error_class, row id. */
  String retryLater();

  /** Parameters: last_error, error_class, row id. */
  String quarantine();

  /** Aggregates with rows still to publish. */
  String pendingAggregates();

  /**
   * One aggregate's rows still to publish, in version order, with {@code attempts}, {@code
   * quarantined} and {@code waiting}. Parameters: type, id, limit.
   */
  String pendingOfAggregate();

  /**
   * The rows among the stream's that the table holds, with {@code published} (true once marked). On
   * MariaDB a locking read: it waits for an XA branch that inserted one of them and is prepared, so
   * a row is seen only once its transaction's outcome is known. Parameters: row ids (a list).
   */
  String rowsOfStream();

  /** Parameters: store name. */
  String offsets();

  /** Parameters: store name, key, value. */
  String saveOffset();

  /** Parameters: slot, relay id, host. */
  String registerRelay();

  /** Parameters: published since the last beat, last published (instant or null), slot. */
  String relayHeartbeat();

  /** Parameters: slot. */
  String relayFlushed();

  /**
   * Rows still to publish ({@code pending}), the oldest one's time ({@code oldest}), {@code
   * db_now}.
   */
  String backlog();

  static CdcDialect of(Dialect dialect) {
    return dialect instanceof MariaDbDialect
        ? MariaDbCdcDialect.INSTANCE
        : PostgresCdcDialect.INSTANCE;
  }

  /** The dialect of a JDBC URL: {@code jdbc:mariadb:} or {@code jdbc:postgresql:}. */
  static CdcDialect ofUrl(String jdbcUrl) {
    return jdbcUrl.startsWith("jdbc:mariadb:")
        ? MariaDbCdcDialect.INSTANCE
        : PostgresCdcDialect.INSTANCE;
  }
}
