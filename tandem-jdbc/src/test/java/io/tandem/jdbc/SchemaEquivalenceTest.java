package io.tandem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.RequiresMariaDb;
import io.tandem.testkit.TestInfrastructure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Both dialects' migrations end in the same schema: the same tables with the same columns, each of
 * an equivalent type, nullability and generation, and the same named constraints. Read from
 * information_schema after migrating a fresh database on each server; skipped without MariaDB.
 */
@RequiresMariaDb
class SchemaEquivalenceTest {
  private static final Set<String> TABLES =
      Set.of(
          "tandem_outbox",
          "tandem_inbox",
          "tandem_relay_partition",
          "tandem_relay_instance",
          "tandem_inbox_position",
          "tandem_inbox_parked",
          "tandem_inbox_advance",
          "tandem_dead_letter",
          "tandem_saga",
          "tandem_saga_step",
          "tandem_saga_participation",
          "tandem_xa_decision",
          "tandem_xa_resolution",
          "tandem_cdc_offset",
          "tandem_cdc_relay",
          "tandem_cdc_heartbeat",
          "tandem_dashboard_action");

  private static final String POSTGRES_COLUMNS =
      """
      SELECT table_name, column_name, data_type, is_nullable, is_generated, is_identity
        FROM information_schema.columns
       WHERE table_schema = current_schema()
      """;

  private static final String MARIADB_COLUMNS =
      """
      SELECT c.table_name, c.column_name, c.data_type, c.column_type, c.character_set_name,
             c.is_nullable, c.is_generated, c.extra,
             EXISTS (SELECT 1 FROM information_schema.check_constraints k
                      WHERE k.constraint_schema = c.table_schema AND k.table_name = c.table_name
                        AND k.check_clause LIKE CONCAT('%json_valid(`', c.column_name, '`)%'))
                 AS json_checked
        FROM information_schema.columns c
       WHERE c.table_schema = DATABASE()
      """;

  private static final String CONSTRAINTS =
      """
      SELECT table_name, constraint_name FROM information_schema.table_constraints
       WHERE constraint_schema = %s AND constraint_name LIKE 'tandem%%'
      """;

  private static IsolatedDatabase postgres;
  private static IsolatedDatabase mariadb;

  @BeforeAll
  static void migrateBoth() {
    mariadb = TestInfrastructure.mariadb().createDatabase("schema_equivalence"); // or skip
    postgres = TestInfrastructure.postgres().createDatabase("schema_equivalence");
    Migrations.migrate(mariadb.dataSource());
    Migrations.migrate(postgres.dataSource());
  }

  /** MariaDB only, by design (V11): its foreign keys refuse TRUNCATE; PostgreSQL has a trigger. */
  private static final String MARIADB_TRUNCATE_GUARD = "tandem_truncate_guard";

  @AfterAll
  static void dropBoth() {
    if (postgres != null) {
      postgres.close();
    }
    if (mariadb != null) {
      mariadb.close();
    }
  }

  @Test
  void everyTandemTableHasTheSameColumnsOfEquivalentTypes() throws SQLException {
    Map<String, Map<String, Column>> pg = postgresColumns(postgres.dataSource());
    Map<String, Map<String, Column>> maria = mariaDbColumns(mariadb.dataSource());

    assertThat(pg.keySet()).containsExactlyInAnyOrderElementsOf(TABLES);
    // MariaDB only, by design: its TRUNCATE guard (V11), a table that PostgreSQL's trigger
    // replaces.
    assertThat(maria.remove(MARIADB_TRUNCATE_GUARD)).as("MariaDB's TRUNCATE guard").isNotNull();
    assertThat(maria.keySet()).containsExactlyInAnyOrderElementsOf(TABLES);
    for (String table : TABLES) {
      assertThat(maria.get(table)).as(table).isEqualTo(pg.get(table));
    }
    assertThat(pg.get("tandem_outbox"))
        .as("the outbox as DESIGN.md lists it")
        .containsKeys(
            "id",
            "event_id",
            "aggregate_type",
            "aggregate_id",
            "aggregate_version",
            "event_type",
            "schema_version",
            "payload",
            "headers",
            "occurred_at",
            "created_at",
            "partition_no",
            "attempts",
            "next_attempt_at",
            "published_by",
            "published_at",
            "last_error",
            "error_class",
            "quarantined_at",
            "skipped_at",
            "skip_reason");
  }

  @Test
  void everyNamedConstraintExistsOnBoth() throws SQLException {
    Set<String> pg = constraints(postgres.dataSource(), "current_schema()");
    Set<String> maria = constraints(mariadb.dataSource(), "DATABASE()");
    pg.removeIf(name -> name.endsWith("_pkey")); // MariaDB names every primary key PRIMARY
    assertThat(pg).isNotEmpty();
    // MariaDB's CHECKs cannot loop over a JSON object: its insert trigger says these two rules,
    // and its errors start with the same names.
    Set<String> byTrigger =
        Set.of(
            "tandem_outbox.tandem_outbox_header_values_strings",
            "tandem_outbox.tandem_outbox_header_values_not_blank");
    assertThat(pg).containsAll(byTrigger);
    assertThat(maria).containsAll(pg.stream().filter(n -> !byTrigger.contains(n)).toList());
    try (Connection c = mariadb.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT action_statement FROM information_schema.triggers"
                    + " WHERE trigger_schema = DATABASE()"
                    + " AND trigger_name = 'tandem_outbox_check_headers'")) {
      assertThat(rs.next()).as("MariaDB's header trigger").isTrue();
      for (String rule : byTrigger) {
        assertThat(rs.getString(1)).contains(rule.substring("tandem_outbox.".length()) + ":");
      }
    }
    assertThat(maria)
        .as("what MariaDB checks that PostgreSQL's types enforce")
        .contains(
            "tandem_outbox.tandem_outbox_event_id_uuid",
            "tandem_outbox.tandem_outbox_payload_json");
  }

  /** A column as both databases can describe it. */
  record Column(String type, boolean nullable, boolean generated, boolean identity) {}

  private static Map<String, Map<String, Column>> postgresColumns(DataSource ds)
      throws SQLException {
    Map<String, Map<String, Column>> tables = new TreeMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(POSTGRES_COLUMNS);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String table = rs.getString("table_name");
        if (!TABLES.contains(table)) {
          continue;
        }
        boolean generated = "ALWAYS".equals(rs.getString("is_generated"));
        String type =
            switch (rs.getString("data_type")) {
              case "uuid" -> "uuid";
              case "text" -> "text";
              case "jsonb" -> "json";
              case "bigint" -> "bigint";
              case "integer" -> "integer";
              case "bytea" -> "bytes";
              case "timestamp with time zone" -> "timestamp";
              case "boolean" -> "boolean";
              default -> "unexpected " + rs.getString("data_type");
            };
        tables
            .computeIfAbsent(table, t -> new TreeMap<>())
            .put(
                rs.getString("column_name"),
                new Column(
                    type,
                    // MariaDB cannot declare a generated column NOT NULL; both are computed from
                    // NOT NULL columns and never null.
                    !generated && "YES".equals(rs.getString("is_nullable")),
                    generated,
                    "YES".equals(rs.getString("is_identity"))));
      }
    }
    return tables;
  }

  private static Map<String, Map<String, Column>> mariaDbColumns(DataSource ds)
      throws SQLException {
    Map<String, Map<String, Column>> tables = new TreeMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(MARIADB_COLUMNS);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        String table = rs.getString("table_name");
        if (!TABLES.contains(table) && !table.equals(MARIADB_TRUNCATE_GUARD)) {
          continue;
        }
        String columnType = rs.getString("column_type").toLowerCase(Locale.ROOT);
        String extra = rs.getString("extra").toLowerCase(Locale.ROOT);
        boolean generated = "ALWAYS".equals(rs.getString("is_generated"));
        String type =
            switch (rs.getString("data_type").toLowerCase(Locale.ROOT)) {
              case "char" ->
                  columnType.equals("char(36)")
                          && "ascii".equals(rs.getString("character_set_name"))
                      ? "uuid"
                      : "unexpected " + columnType;
              case "varchar", "text" -> "text";
              case "longtext" -> rs.getBoolean("json_checked") ? "json" : "text";
              case "bigint" -> "bigint";
              case "int" -> "integer";
              case "longblob" -> "bytes";
              // MariaDB's BOOLEAN is TINYINT(1).
              case "tinyint" ->
                  columnType.equals("tinyint(1)") ? "boolean" : "unexpected " + columnType;
              // DATETIME(6) holding UTC stands for timestamptz; microseconds as on PostgreSQL.
              case "datetime" ->
                  columnType.equals("datetime(6)") ? "timestamp" : "unexpected " + columnType;
              default -> "unexpected " + columnType;
            };
        tables
            .computeIfAbsent(table, t -> new TreeMap<>())
            .put(
                rs.getString("column_name"),
                new Column(
                    type,
                    !generated && "YES".equals(rs.getString("is_nullable")),
                    generated,
                    extra.contains("auto_increment")));
      }
    }
    return tables;
  }

  private static Set<String> constraints(DataSource ds, String schemaFunction) throws SQLException {
    Set<String> names = new TreeSet<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(String.format(CONSTRAINTS, schemaFunction));
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (TABLES.contains(rs.getString("table_name"))) {
          names.add(rs.getString("table_name") + "." + rs.getString("constraint_name"));
        }
      }
    }
    return names;
  }
}
