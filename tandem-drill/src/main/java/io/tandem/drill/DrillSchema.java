package io.tandem.drill;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The drills' own tables, beside Tandem's. In the service database: {@code drill_accounts} (one row
 * per aggregate, its version bumped by every change) and {@code drill_changes} (one row per
 * committed change, with the event id the change announced). In the consumer database: {@code
 * drill_effects} (the business side effect: one row per applied event, in apply order, with no
 * unique key — only the inbox stands between a redelivery and a second row), {@code
 * drill_deliveries} (one row per message the consumer received, written before it is processed) and
 * {@code drill_rules} (what the consumer refuses; the operator's fix in the quarantine drill).
 */
final class DrillSchema {
  private DrillSchema() {}

  static void createServiceTables(DataSource ds, int aggregates) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS drill_accounts ("
              + " id text PRIMARY KEY, version bigint NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS drill_changes ("
              + " seq bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE,"
              + " aggregate_id text NOT NULL, version bigint NOT NULL,"
              + " committed_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      s.execute(
          "INSERT INTO drill_accounts (id, version) SELECT 'account-' || g, 0"
              + " FROM generate_series(0, "
              + (aggregates - 1)
              + ") g ON CONFLICT DO NOTHING");
    }
  }

  static void createConsumerTables(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS drill_effects ("
              + " seq bigserial PRIMARY KEY, event_id uuid NOT NULL,"
              + " aggregate_id text NOT NULL, version bigint NOT NULL,"
              + " applied_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      s.execute(
          "CREATE TABLE IF NOT EXISTS drill_deliveries ("
              + " seq bigserial PRIMARY KEY, event_id uuid,"
              + " received_at timestamptz NOT NULL DEFAULT clock_timestamp())");
      s.execute(
          "CREATE TABLE IF NOT EXISTS drill_rules ("
              + " name text PRIMARY KEY, enabled boolean NOT NULL)");
      s.execute(
          "INSERT INTO drill_rules (name, enabled) VALUES ('reject-poison', true)"
              + " ON CONFLICT DO NOTHING");
    }
  }
}
