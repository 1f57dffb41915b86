package io.tandem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract every {@link Dialect} keeps, run against a real server per database: each statement
 * runs with the parameters its Javadoc names, in that order, and returns the columns it names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DialectTest {
  static final UUID EVENT = UUID.fromString("0192f0c1-7a2b-7cde-8f01-23456789abcd");

  private IsolatedDatabase database;
  private DataSource dataSource;
  private Dialect dialect;

  /** The server this suite runs against. */
  abstract DatabaseServer server();

  /** The dialect expected for that server. */
  abstract Dialect expectedDialect();

  /** How many migration files the dialect ships (a fresh database applies them all). */
  /** The folder under {@code db/} whose migrations this database family applies. */
  abstract String migrationFolder();

  /** The number of migration files the jar ships for this family: every one must be applied. */
  private int expectedMigrations() {
    try (var files =
        java.nio.file.Files.list(
            java.nio.file.Path.of(
                Migrations.class.getResource("/db/" + migrationFolder()).toURI()))) {
      return (int) files.filter(f -> f.getFileName().toString().matches("V\\d+__.*\\.sql")).count();
    } catch (java.io.IOException | java.net.URISyntaxException e) {
      throw new IllegalStateException("cannot list the migrations of " + migrationFolder(), e);
    }
  }

  @BeforeAll
  void createDatabase() {
    database = server().createDatabase("dialect_test");
    dataSource = database.dataSource();
    assertThat(Migrations.migrate(dataSource)).isEqualTo(expectedMigrations());
    dialect = Dialect.of(dataSource);
  }

  @AfterAll
  void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void clean() throws SQLException {
    // Publish everything first: the guard refuses to delete an unpublished row.
    execute("UPDATE tandem_outbox SET published_at = occurred_at WHERE published_at IS NULL");
    execute("DELETE FROM tandem_outbox");
    execute("DELETE FROM tandem_inbox");
    execute("DELETE FROM tandem_relay_instance");
    execute("UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL, epoch = 0");
  }

  @Test
  void theDialectIsDetectedFromTheConnection() {
    assertThat(dialect).isSameAs(expectedDialect());
    assertThat(Migrations.migrate(dataSource)).as("migrating again").isZero();
  }

  @Test
  void theSchemaHasSixtyFourPartitionsAndSpreadsAggregatesOverThem() throws SQLException {
    assertThat(longs("SELECT partition_no FROM tandem_relay_partition ORDER BY partition_no"))
        .hasSize(Dialect.PARTITIONS)
        .startsWith(0L)
        .endsWith(Dialect.PARTITIONS - 1L);
    for (int i = 0; i < 200; i++) {
      insert(UUID.randomUUID(), "Order", "o-" + (i % 100), i / 100 + 1, Instant.now());
    }
    List<Long> partitions = longs("SELECT DISTINCT partition_no FROM tandem_outbox");
    assertThat(partitions).allSatisfy(p -> assertThat(p).isBetween(0L, 63L)).hasSizeGreaterThan(30);
    assertThat(
            longs(
                "SELECT count(DISTINCT partition_no) FROM tandem_outbox"
                    + " GROUP BY aggregate_type, aggregate_id"))
        .as("one partition per aggregate")
        .containsOnly(1L);
  }

  @Test
  void everyStatementTakesItsDocumentedParametersAndReturnsItsDocumentedColumns()
      throws SQLException {
    // Row ids well above the epochs (1) and versions used below, so that a statement binding one
    // where the other goes cannot pass by coincidence.
    for (int i = 0; i < 5; i++) {
      insert(UUID.randomUUID(), "Filler", "f-" + i, 1, Instant.now());
    }
    clean();
    Instant occurred = Instant.parse("2026-03-29T01:30:00.123456Z");
    insert(EVENT, "Order", "o-1", 1, occurred);
    long rowId = longs("SELECT id FROM tandem_outbox").get(0);
    assertThat(rowId).isGreaterThan(5);
    int partition = longs("SELECT partition_no FROM tandem_outbox").get(0).intValue();
    List<Integer> all = new ArrayList<>();
    for (int p = 0; p < Dialect.PARTITIONS; p++) {
      all.add(p);
    }
    try (Connection c = dataSource.getConnection()) {
      LeaseStatements leases = dialect.leases();
      OutboxStatements outbox = dialect.outbox();
      Duration minute = Duration.ofMinutes(1);
      assertThat(leases.heartbeat(c, "r1", "host-1")).isPositive();
      assertThat(leases.heartbeat(c, "r1", "host-1")).as("a refresh").isPositive();
      assertThat(leases.liveInstances(c, minute)).isEqualTo(1L);
      assertThat(leases.acquireCandidates(c, 64)).hasSize(64).startsWith(0);
      assertThat(leases.acquire(c, "r1", minute, all)).isEqualTo(64);
      assertThat(leases.acquireCandidates(c, 64)).as("all taken").isEmpty();
      assertThat(leases.renew(c, "r1", minute)).isEqualTo(64);
      assertThat(leases.renew(c, "r2", minute)).as("not the owner").isZero();
      assertThat(leases.ownedPartitions(c, "r1")).hasSize(64).containsEntry(0, 1L);
      assertThat(leases.ownedPartitions(c, "r1").values()).containsOnly(1L);

      // outbox: claim reads the event back exactly as appended
      outbox.claim(
          c,
          all,
          0,
          10,
          rs -> {
            assertLabels(
                rs,
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
                "attempts",
                "partition_no");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getObject("event_id", UUID.class)).isEqualTo(EVENT);
            assertThat(dialect.readInstant(rs, "occurred_at")).isEqualTo(occurred);
            assertThat(rs.getString("payload")).contains("\"orderId\"");
            assertThat(rs.getString("headers")).contains("\"tenant\"");
            assertThat(rs.getInt("partition_no")).isEqualTo(partition);
            assertThat(rs.next()).isFalse();
            return null;
          });
      assertThat(outbox.claim(c, List.of(), 0, 10, ResultSet::next))
          .as("no partitions, no rows")
          .isFalse();
      assertThat(outbox.claim(c, all, rowId, 10, ResultSet::next))
          .as("rows at or below the cursor are skipped")
          .isFalse();
      assertThat(outbox.retryLater(c, rowId, "r1", 1L, minute, ErrorClass.TIMEOUT, "boom"))
          .isEqualTo(1);
      assertThat(
              outbox.retryLater(c, rowId, "r1", 2L, Duration.ofMillis(1), ErrorClass.TIMEOUT, "x"))
          .as("a stale epoch is fenced")
          .isZero();
      assertThat(outbox.quarantine(c, rowId, "r1", 1L, ErrorClass.SERIALIZATION, "bad"))
          .isEqualTo(1);
      OperationStatements ops = dialect.operations();
      ops.listQuarantined(
          c,
          10,
          rs -> {
            assertLabels(
                rs,
                "event_id",
                "aggregate_type",
                "aggregate_id",
                "aggregate_version",
                "event_type",
                "attempts",
                "error_class",
                "last_error",
                "quarantined_at",
                "created_at");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt("attempts")).isEqualTo(2);
            assertThat(dialect.readInstant(rs, "quarantined_at")).isBetween(ago(60), inSeconds(60));
            assertThat(dialect.readInstant(rs, "created_at")).isBetween(ago(60), inSeconds(60));
            assertThat(rs.next()).isFalse();
            return null;
          });
      assertThat(ops.listQuarantined(c, 10, ResultSet::next)).isTrue();
      assertThat(ops.replay(c, EVENT)).isEqualTo(1);
      assertThat(ops.replay(c, EVENT)).as("not quarantined any more").isZero();
      assertThat(ops.listQuarantined(c, 10, ResultSet::next)).isFalse();
      assertThat(outbox.quarantine(c, rowId, "r1", 1L, ErrorClass.SERIALIZATION, "bad"))
          .isEqualTo(1);
      assertThat(outbox.quarantine(c, rowId, "r2", 1L, ErrorClass.SERIALIZATION, "bad"))
          .as("not the owner")
          .isZero();
      assertThat(ops.replayAll(c)).isEqualTo(1);

      // mark published: fenced by owner, epoch (aligned with its partition) and live lease
      assertThat(markPublished(c, "r2", List.of(partition), List.of(1L), rowId))
          .as("not the owner")
          .isZero();
      assertThat(markPublished(c, "r1", List.of(partition), List.of(7L), rowId))
          .as("a stale epoch")
          .isZero();
      assertThat(markPublished(c, "r1", List.of(partition, 63), List.of(1L, 1L), rowId))
          .isEqualTo(1);
      assertThat(longs("SELECT attempts FROM tandem_outbox")).containsExactly(1L);
      assertThat(strings("SELECT published_by FROM tandem_outbox")).containsExactly("r1");

      insert(UUID.randomUUID(), "Order", "o-1", 2, occurred);
      UUID skipped = UUID.randomUUID();
      insert(skipped, "Order", "o-1", 3, occurred);
      assertThat(ops.skip(c, skipped, "superseded")).isEqualTo(1);
      assertThat(ops.skip(c, skipped, "again")).as("skipped already").isZero();
      assertThat(strings("SELECT skip_reason FROM tandem_outbox WHERE skip_reason IS NOT NULL"))
          .containsExactly("superseded");
      assertThat(ops.pending(c)).isEqualTo(1);
      List<UUID> eventIds =
          ops.eventIds(
              c,
              rs -> {
                List<UUID> ids = new ArrayList<>();
                while (rs.next()) {
                  ids.add(rs.getObject("event_id", UUID.class));
                }
                return ids;
              });
      assertThat(eventIds).hasSize(3).startsWith(EVENT).endsWith(skipped);
      String byRelay =
          ops.publishedByRelay(
              c,
              rs -> {
                assertLabels(rs, "published_by", "published");
                assertThat(rs.next()).isTrue();
                return rs.getString("published_by") + "=" + rs.getLong("published");
              });
      assertThat(byRelay).isEqualTo("r1=1");
      Integer newest =
          ops.newestPublished(
              c,
              5,
              rs -> {
                assertLabels(rs, "created_at", "published_at");
                int rows = 0;
                while (rs.next()) {
                  rows++;
                }
                return rows;
              });
      assertThat(newest).isEqualTo(1);

      ops.backlog(
          c,
          rs -> {
            assertLabels(
                rs, "pending", "oldest_pending_age_ms", "quarantined", "skipped", "published");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong("pending")).isEqualTo(1);
            assertThat(rs.getLong("oldest_pending_age_ms")).isBetween(0L, 60_000L);
            assertThat(rs.getLong("quarantined")).isZero();
            assertThat(rs.getLong("skipped")).isEqualTo(1);
            assertThat(rs.getLong("published")).isEqualTo(1);
            return null;
          });
      ops.partitions(
          c,
          rs -> {
            assertLabels(rs, "partition_no", "owner", "epoch", "lease_remaining_ms", "pending");
            long pending = 0;
            while (rs.next()) {
              assertThat(rs.getString("owner")).isEqualTo("r1");
              assertThat(rs.getLong("lease_remaining_ms")).isBetween(1L, 60_000L);
              pending += rs.getLong("pending");
            }
            assertThat(pending).isEqualTo(1);
            return null;
          });
      ops.instances(
          c,
          rs -> {
            assertLabels(rs, "relay_id", "host", "started_at", "heartbeat_age_ms");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString("relay_id")).isEqualTo("r1");
            assertThat(dialect.readInstant(rs, "started_at")).isBetween(ago(60), inSeconds(60));
            assertThat(rs.getLong("heartbeat_age_ms")).isBetween(0L, 60_000L);
            return null;
          });

      // retention: the pending row (version 2) holds the watermark
      long watermark = ops.retentionWatermark(c);
      assertThat(watermark).isEqualTo(rowId + 1);
      assertThat(ops.retentionCount(c, Duration.ZERO, watermark)).isEqualTo(1L);
      assertThat(ops.retentionCount(c, Duration.ZERO, rowId)).as("below the watermark").isZero();
      assertThat(ops.retentionDelete(c, minute, watermark, 10)).isZero();
      assertThat(ops.retentionDelete(c, Duration.ZERO, watermark, 10)).isEqualTo(1);
      assertThat(ops.retentionCount(c, Duration.ZERO, watermark)).isZero();

      assertThat(leases.release(c, "r2", List.of(0, 1, 2))).as("not the owner").isZero();
      assertThat(leases.release(c, "r1", List.of(0, 1, 2))).isEqualTo(3);
      assertThat(leases.ownedPartitions(c, "r1")).hasSize(61).doesNotContainKey(0);
      assertThat(leases.purgeInstances(c, minute)).isZero();
      assertThat(leases.purgeInstances(c, Duration.ZERO)).as("silent for longer than 0").isOne();
      assertThat(leases.heartbeat(c, "r1", "host-1")).isPositive();
      assertThat(leases.deregister(c, "r1")).isEqualTo(1);
      assertThat(leases.liveInstances(c, minute)).isZero();
    }
  }

  @Test
  void theInboxInsertAffectsOneRowTheFirstTimeAndNoneForADuplicate() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      Object[] record = {"billing", EVENT, "Order", "o-1", 1L, "OrderConfirmed"};
      assertThat(update(c, dialect.inboxInsert(), record)).isEqualTo(1);
      assertThat(update(c, dialect.inboxInsert(), record)).isZero();
      assertThat(update(c, dialect.inboxInsert(), "audit", EVENT, "Order", "o-1", 1L, "E"))
          .isEqualTo(1);
    }
  }

  @Test
  void aDuplicateEventIsAUniqueViolation() throws SQLException {
    insert(EVENT, "Order", "o-1", 1, Instant.now());
    assertThatThrownBy(() -> insert(EVENT, "Order", "o-2", 1, Instant.now()))
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(dialect.isUniqueViolation(e)).isTrue());
    assertThatThrownBy(() -> insert(UUID.randomUUID(), "Order", "o-1", 1, Instant.now()))
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(dialect.isUniqueViolation(e)).isTrue());
  }

  @Test
  void instantsRoundTripExactlyWhateverTheJvmTimeZone() throws SQLException {
    TimeZone original = TimeZone.getDefault();
    // Both are 02:30 on the wall in Paris: the hour that happens twice when summer time ends.
    Instant summer = Instant.parse("2026-10-25T00:30:00.123456Z");
    Instant winter = Instant.parse("2026-10-25T01:30:00.654321Z");
    try {
      for (String zone : List.of("Europe/Paris", "America/New_York", "Asia/Kolkata", "UTC")) {
        TimeZone.setDefault(TimeZone.getTimeZone(zone));
        clean();
        insert(UUID.randomUUID(), "Order", "summer", 1, summer);
        insert(UUID.randomUUID(), "Order", "winter", 1, winter);
        try (Connection c = dataSource.getConnection();
            Statement s = c.createStatement();
            ResultSet rs =
                s.executeQuery(
                    "SELECT aggregate_id, occurred_at, created_at FROM tandem_outbox"
                        + " ORDER BY aggregate_id")) {
          assertThat(rs.next()).isTrue();
          assertThat(dialect.readInstant(rs, "occurred_at")).as(zone).isEqualTo(summer);
          // The database's clock, read back, is now: it is UTC on both sides.
          assertThat(dialect.readInstant(rs, "created_at"))
              .as(zone)
              .isBetween(ago(60), inSeconds(60));
          assertThat(rs.next()).isTrue();
          assertThat(dialect.readInstant(rs, "occurred_at")).as(zone).isEqualTo(winter);
        }
      }
    } finally {
      TimeZone.setDefault(original);
    }
  }

  @Test
  void theGuardKeepsEventColumnsAndUnpublishedRows() throws SQLException {
    insert(EVENT, "Order", "o-1", 1, Instant.now());
    assertThatThrownBy(() -> execute("UPDATE tandem_outbox SET aggregate_id = 'o-2'"))
        .hasMessageContaining("event columns of event " + EVENT + " are immutable");
    assertThatThrownBy(() -> execute("UPDATE tandem_outbox SET payload = '{\"orderId\": 1}'"))
        .hasMessageContaining("are immutable");
    assertThatThrownBy(() -> execute("DELETE FROM tandem_outbox"))
        .hasMessageContaining("event " + EVENT + " is not published yet and cannot be deleted");
    execute("UPDATE tandem_outbox SET attempts = 5, last_error = 'x'");
    assertThatThrownBy(() -> execute("UPDATE tandem_outbox SET skipped_at = created_at"))
        .as("a skip needs a reason")
        .isInstanceOf(SQLException.class);
    assertThat(longs("SELECT attempts FROM tandem_outbox")).containsExactly(5L);
  }

  /**
   * The delivery columns: the only ones the relay and the operator may set. Every other column of
   * the outbox, as the schema lists it, is an event column and must be guarded, so a column added
   * by a later migration is guarded or this test fails.
   */
  private static final Set<String> DELIVERY_COLUMNS =
      Set.of(
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

  @Test
  void everyEventColumnIsGuardedAndEveryDeliveryColumnIsFree() throws SQLException {
    Map<String, Boolean> columns = outboxColumns(); // name -> set by the database itself
    assertThat(columns.keySet()).as("the delivery columns exist").containsAll(DELIVERY_COLUMNS);
    List<String> eventColumns =
        columns.keySet().stream().filter(c -> !DELIVERY_COLUMNS.contains(c)).toList();
    assertThat(eventColumns).contains("event_id", "payload", "headers", "occurred_at");

    insert(EVENT, "Order", "o-1", 1, Instant.now());
    // A second row that differs in every column: its values are the edits tried on the first.
    execute(
        "INSERT INTO tandem_outbox (event_id, aggregate_type, aggregate_id, aggregate_version,"
            + " event_type, schema_version, payload, headers, occurred_at, created_at)"
            + " VALUES ('"
            + UUID.randomUUID()
            + "', 'Invoice', 'i-9', 7, 'Forged', 2, '{\"invoice\": 9}', '{\"tenant\": \"x\"}',"
            + " '2001-02-03 04:05:06', '2001-02-03 04:05:06')");
    long first = longs("SELECT min(id) FROM tandem_outbox").get(0);
    long second = longs("SELECT max(id) FROM tandem_outbox").get(0);
    Map<String, Object> other = new LinkedHashMap<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM tandem_outbox WHERE id = " + second)) {
      assertThat(rs.next()).isTrue();
      for (String column : columns.keySet()) {
        other.put(column, rs.getObject(column));
      }
    }
    try (Connection c = dataSource.getConnection()) {
      for (String column : eventColumns) {
        String update = "UPDATE tandem_outbox SET " + column + " = ? WHERE id = " + first;
        if (columns.get(column)) {
          // id: an identity (PostgreSQL refuses it before the guard, MariaDB in the guard)
          assertThatThrownBy(() -> update(c, update, other.get(column)))
              .as(update)
              .isInstanceOf(SQLException.class);
        } else {
          assertThatThrownBy(() -> update(c, update, other.get(column)))
              .as("%s (an event column, so guarded)", column)
              .hasMessageContaining("are immutable");
        }
      }
    }
    assertThat(longs("SELECT count(*) FROM tandem_outbox WHERE aggregate_id = 'o-1'"))
        .containsExactly(1L);
    // The same statement in the relay's and the operator's shape: delivery columns only.
    execute(
        "UPDATE tandem_outbox SET published_at = occurred_at, published_by = 'r1', attempts = 1,"
            + " next_attempt_at = occurred_at, last_error = 'x', error_class = 'TIMEOUT',"
            + " quarantined_at = NULL, skipped_at = occurred_at, skip_reason = 'r'");
    assertThat(longs("SELECT attempts FROM tandem_outbox")).containsOnly(1L);
    // An event column set to its own value is no edit.
    execute("UPDATE tandem_outbox SET event_type = event_type, payload = payload");
  }

  /** The outbox's columns as the schema lists them, each with whether the database sets it. */
  private Map<String, Boolean> outboxColumns() throws SQLException {
    boolean postgres = dialect instanceof PostgresDialect;
    String sql =
        postgres
            ? "SELECT column_name, is_identity = 'YES' OR is_generated = 'ALWAYS'"
                + " FROM information_schema.columns"
                + " WHERE table_schema = current_schema() AND table_name = 'tandem_outbox'"
            : "SELECT column_name, extra LIKE '%auto_increment%' OR is_generated = 'ALWAYS'"
                + " FROM information_schema.columns"
                + " WHERE table_schema = DATABASE() AND table_name = 'tandem_outbox'";
    Map<String, Boolean> columns = new LinkedHashMap<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        columns.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getBoolean(2));
      }
    }
    return columns;
  }

  private int markPublished(
      Connection c, String owner, List<Integer> partitions, List<Long> epochs, long rowId)
      throws SQLException {
    Map<Integer, Long> owned = new LinkedHashMap<>();
    for (int i = 0; i < partitions.size(); i++) {
      owned.put(partitions.get(i), epochs.get(i));
    }
    return dialect.outbox().markPublished(c, owner, owned, List.of(rowId));
  }

  void insert(UUID eventId, String type, String id, long version, Instant occurred)
      throws SQLException {
    Event event =
        Event.builder()
            .eventId(eventId)
            .aggregate(type, id, version)
            .eventType("OrderConfirmed")
            .payload("{\"orderId\": \"" + id + "\"}")
            .headers(EventHeaders.of(Map.of("tenant", "acme")))
            .occurredAt(occurred)
            .build();
    try (Connection c = dataSource.getConnection()) {
      dialect.outbox().insert(c, List.of(event));
    }
  }

  private static Instant ago(long seconds) {
    return Instant.now().minusSeconds(seconds);
  }

  private static Instant inSeconds(long seconds) {
    return Instant.now().plusSeconds(seconds);
  }

  private static void assertLabels(ResultSet rs, String... labels) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    List<String> actual = new ArrayList<>();
    for (int i = 1; i <= md.getColumnCount(); i++) {
      actual.add(md.getColumnLabel(i).toLowerCase(Locale.ROOT));
    }
    assertThat(actual).containsExactly(labels);
  }

  private static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params)) {
      return ps.executeUpdate();
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... params)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
    return ps;
  }

  private List<Long> longs(String sql) throws SQLException {
    List<Long> values = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getLong(1));
      }
    }
    return values;
  }

  private List<String> strings(String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  void execute(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
