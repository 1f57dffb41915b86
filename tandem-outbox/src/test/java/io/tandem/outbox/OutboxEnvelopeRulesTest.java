package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.core.EventRule;
import io.tandem.jdbc.Migrations;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rule of the envelope against a row appended by plain SQL, as a service in another language
 * writes it: the database refuses the row at insert, naming the rule, or the relay quarantines it
 * with the reason; the good rows appended around it are published either way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxEnvelopeRulesTest {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  OutboxDatabase db;

  /** Creates a database on the server under test, migrated up to {@code version} (null: all). */
  abstract OutboxDatabase openDatabase(String prefix, String version);

  /** The last migration before the one that added the envelope's rules. */
  abstract String lastVersionWithoutTheRules();

  @BeforeAll
  void setUp() {
    db = openDatabase("outbox_rules", null);
  }

  @AfterAll
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void clean() throws SQLException {
    db.clearOutbox();
    db.execute("UPDATE tandem_relay_partition SET owner = NULL, lease_until = NULL");
    db.execute("DELETE FROM tandem_relay_instance");
  }

  /**
   * One violation of one rule: the column written wrong, its SQL expression, and what refuses it on
   * PostgreSQL and on MariaDB — a fragment of the database's error (the constraint's name where a
   * CHECK says it), or null where the database cannot check it and the relay quarantines the row.
   */
  record Violation(
      String rule,
      String column,
      Function<OutboxDatabase, String> value,
      String refusedOnPostgres,
      String refusedOnMariaDb) {
    @Override
    public String toString() {
      return rule + " (" + column + ")";
    }
  }

  private static Violation v(String rule, String column, String text, String refusedBy) {
    return new Violation(rule, column, d -> d.literal(text), refusedBy, refusedBy);
  }

  private static Violation v(
      String rule, String column, String text, String onPostgres, String onMariaDb) {
    return new Violation(rule, column, d -> d.literal(text), onPostgres, onMariaDb);
  }

  private static Violation sql(String rule, String column, String expression, String refusedBy) {
    return new Violation(rule, column, d -> expression, refusedBy, refusedBy);
  }

  static final String NOT_NULL_PG = "null value in column";
  static final String NOT_NULL_MARIADB = "cannot be null";
  static final String NAMES = "tandem_outbox_names_";

  static List<Violation> violations() {
    List<Violation> all = new ArrayList<>();
    all.add(
        new Violation(
            "REQUIRED", "event_id", d -> "NULL", NOT_NULL_PG + " \"event_id\"", NOT_NULL_MARIADB));
    all.add(
        v(
            "EVENT_ID_UUID",
            "event_id",
            "not-a-uuid",
            "invalid input syntax for type uuid",
            "tandem_outbox_event_id_uuid"));
    for (String name : List.of("aggregate_type", "aggregate_id", "event_type")) {
      all.add(
          new Violation(
              "REQUIRED", name, d -> "NULL", NOT_NULL_PG + " \"" + name + "\"", NOT_NULL_MARIADB));
      all.add(v("NAME_NOT_BLANK", name, "", NAMES + "not_blank"));
      all.add(v("NAME_NOT_BLANK", name, "   ", NAMES + "not_blank"));
      all.add(
          v(
              "NAME_LENGTH",
              name,
              "x".repeat(256),
              NAMES + "at_most_255_characters",
              "Data too long for column '" + name + "'"));
      all.add(v("NAME_CONTROL_CHARACTERS", name, "o\t1", NAMES + "without_control_characters"));
      all.add(v("NAME_CONTROL_CHARACTERS", name, "o\u00851", NAMES + "without_control_characters"));
      all.add(v("NAME_CONTROL_CHARACTERS", name, "o-1\n", NAMES + "without_control_characters"));
      all.add(v("NAME_SURROUNDING_SPACE", name, " o-1", NAMES + "without_surrounding_space"));
      all.add(v("NAME_SURROUNDING_SPACE", name, "o-1 ", NAMES + "without_surrounding_space"));
      all.add(v("NAME_SURROUNDING_SPACE", name, "o-1\u00a0", NAMES + "without_surrounding_space"));
      all.add(v("NAME_SURROUNDING_SPACE", name, "\u3000o-1", NAMES + "without_surrounding_space"));
    }
    all.add(
        new Violation(
            "REQUIRED",
            "aggregate_version",
            d -> "NULL",
            NOT_NULL_PG + " \"aggregate_version\"",
            NOT_NULL_MARIADB));
    all.add(sql("AGGREGATE_VERSION_POSITIVE", "aggregate_version", "0", "version_positive"));
    all.add(sql("AGGREGATE_VERSION_POSITIVE", "aggregate_version", "-3", "version_positive"));
    all.add(
        sql(
            "SCHEMA_VERSION_POSITIVE",
            "schema_version",
            "0",
            "tandem_outbox_schema_version_positive"));
    all.add(
        new Violation(
            "REQUIRED", "payload", d -> "NULL", NOT_NULL_PG + " \"payload\"", NOT_NULL_MARIADB));
    all.add(
        v(
            "PAYLOAD_JSON",
            "payload",
            "",
            "invalid input syntax for type json",
            "tandem_outbox_payload_json"));
    all.add(
        v(
            "PAYLOAD_JSON",
            "payload",
            "{\"total\": 12",
            "invalid input syntax for type json",
            "tandem_outbox_payload_json"));
    // Valid JSON to both databases, but over the JSON reader's limit of 1,000 digits a number.
    all.add(v("PAYLOAD_JSON", "payload", "{\"total\": " + "9".repeat(1001) + "}", null, null));
    all.add(
        v(
            "PAYLOAD_SIZE",
            "payload",
            "{\"blob\": \"" + "x".repeat(1024 * 1024) + "\"}",
            "tandem_outbox_payload_at_most_1_mib"));
    all.add(
        new Violation(
            "REQUIRED", "headers", d -> "NULL", NOT_NULL_PG + " \"headers\"", NOT_NULL_MARIADB));
    all.add(v("HEADERS_OBJECT", "headers", "[]", "tandem_outbox_headers_object"));
    all.add(v("HEADERS_OBJECT", "headers", "\"tenant\"", "tandem_outbox_headers_object"));
    all.add(
        v(
            "HEADERS_OBJECT",
            "headers",
            "{\"tenant\": ",
            "invalid input syntax for type json",
            "tandem_outbox_headers_object"));
    String keys = "tandem_outbox_header_keys_1_to_20_lowercase_letters_or_digits";
    all.add(v("HEADER_KEY_FORMAT", "headers", "{\"Tenant\": \"acme\"}", keys));
    all.add(v("HEADER_KEY_FORMAT", "headers", "{\"tenant-id\": \"acme\"}", keys));
    all.add(v("HEADER_KEY_FORMAT", "headers", "{\"\": \"acme\"}", keys));
    all.add(v("HEADER_KEY_FORMAT", "headers", "{\"" + "k".repeat(21) + "\": \"acme\"}", keys));
    all.add(v("HEADER_KEY_FORMAT", "headers", "{\"tenant\": \"acme\", \"Trace\": \"x\"}", keys));
    all.add(
        v(
            "HEADER_KEY_RESERVED",
            "headers",
            "{\"partitionkey\": \"x\"}",
            "tandem_outbox_header_keys_not_reserved"));
    all.add(
        v(
            "HEADER_KEY_RESERVED",
            "headers",
            "{\"tenant\": \"acme\", \"id\": \"x\"}",
            "tandem_outbox_header_keys_not_reserved"));
    String strings = "tandem_outbox_header_values_strings";
    all.add(v("HEADER_VALUE_STRING", "headers", "{\"tenant\": 42}", strings));
    all.add(v("HEADER_VALUE_STRING", "headers", "{\"tenant\": null}", strings));
    all.add(v("HEADER_VALUE_STRING", "headers", "{\"tenant\": [\"acme\"]}", strings));
    all.add(v("HEADER_VALUE_STRING", "headers", "{\"tenant\": {\"name\": \"acme\"}}", strings));
    String blank = "tandem_outbox_header_values_not_blank";
    all.add(v("HEADER_VALUE_NOT_BLANK", "headers", "{\"tenant\": \"\"}", blank));
    all.add(v("HEADER_VALUE_NOT_BLANK", "headers", "{\"tenant\": \" \\t \"}", blank));
    all.add(v("HEADER_VALUE_NOT_BLANK", "headers", "{\"tenant\": \"\u00a0\u2007\"}", blank));
    String trace = "tandem_outbox_traceparent_w3c_format";
    all.add(v("TRACEPARENT_FORMAT", "headers", "{\"traceparent\": \"not-a-trace\"}", trace));
    all.add(
        v(
            "TRACEPARENT_FORMAT",
            "headers",
            "{\"traceparent\": \"" + TRACEPARENT.toUpperCase(java.util.Locale.ROOT) + "\"}",
            trace));
    all.add(
        v("TRACEPARENT_FORMAT", "headers", "{\"traceparent\": \"" + TRACEPARENT + "\\n\"}", trace));
    all.add(
        v(
            "HEADERS_SIZE",
            "headers",
            "{\"tracestate\": \"" + "x".repeat(16 * 1024) + "\"}",
            "tandem_outbox_headers_at_most_16_kib"));
    all.add(
        new Violation(
            "REQUIRED",
            "occurred_at",
            d -> "NULL",
            NOT_NULL_PG + " \"occurred_at\"",
            NOT_NULL_MARIADB));
    String range = "tandem_outbox_occurred_at_between_years_1000_and_9999";
    all.add(
        new Violation(
            "OCCURRED_AT_RANGE",
            "occurred_at",
            d -> d.isPostgres() ? "'infinity'" : "'0000-00-00 00:00:00'",
            range,
            range));
    all.add(
        new Violation(
            "OCCURRED_AT_RANGE",
            "occurred_at",
            d -> d.isPostgres() ? "'0999-12-31 23:59:59+00'" : "'0999-12-31 23:59:59'",
            range,
            range));
    all.add(
        new Violation(
            "OCCURRED_AT_RANGE",
            "occurred_at",
            d -> d.isPostgres() ? "'10000-01-01 00:00:00+00'" : "'10000-01-01 00:00:00'",
            range,
            "Incorrect datetime value"));
    return all;
  }

  private String insert(String aggregateId, String column, String expression) {
    return insert(db, aggregateId, 1, column, expression);
  }

  /**
   * The plain insert of a valid row of aggregate Order/{@code aggregateId} at {@code version}, with
   * {@code column}'s value replaced by {@code expression} (none when {@code column} is null).
   */
  private static String insert(
      OutboxDatabase db, String aggregateId, long version, String column, String expression) {
    String[][] columns = {
      {"event_id", db.randomUuid()},
      {"aggregate_type", "'Order'"},
      {"aggregate_id", db.literal(aggregateId)},
      {"aggregate_version", Long.toString(version)},
      {"event_type", "'OrderChanged'"},
      {"schema_version", "1"},
      {"payload", "'{\"orderId\": \"" + aggregateId + "\"}'"},
      {"headers", "'{\"traceparent\": \"" + TRACEPARENT + "\", \"tenant\": \"acme\"}'"},
      {"occurred_at", db.now()}
    };
    StringBuilder names = new StringBuilder();
    StringBuilder values = new StringBuilder();
    for (String[] c : columns) {
      names.append(names.length() == 0 ? "" : ", ").append(c[0]);
      values
          .append(values.length() == 0 ? "" : ", ")
          .append(c[0].equals(column) ? expression : c[1]);
    }
    return "INSERT INTO tandem_outbox (" + names + ") VALUES (" + values + ")";
  }

  private RecordingTransport drainWithRelay() {
    return drainWithRelay(db);
  }

  private static RecordingTransport drainWithRelay(OutboxDatabase db) {
    RecordingTransport transport = new RecordingTransport();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource)
            .transport(transport)
            .relayId("rules")
            .batchSize(500)
            .publishTimeout(Duration.ofSeconds(2))
            .heartbeatInterval(Duration.ofMillis(500))
            .leaseDuration(Duration.ofSeconds(5))
            .build();
    try {
      while (relay.runOnce() > 0) {
        // until nothing is due
      }
    } finally {
      relay.close();
    }
    return transport;
  }

  private static Set<String> aggregateIds(List<Event> events) {
    return events.stream().map(Event::aggregateId).collect(Collectors.toSet());
  }

  Stream<Violation> everyViolation() {
    return violations().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyViolation")
  void aRowBreakingARuleIsRefusedAtInsertOrQuarantinedAndTheRestFlows(Violation violation)
      throws SQLException {
    db.execute(insert("good-before", null, null));
    String bad = insert("bad", violation.column(), violation.value().apply(db));
    String expected =
        db.isPostgres() ? violation.refusedOnPostgres() : violation.refusedOnMariaDb();
    Throwable refused = null;
    try {
      db.execute(bad);
    } catch (SQLException e) {
      refused = e;
    }
    db.execute(insert("good-after", null, null));

    RecordingTransport transport = drainWithRelay();

    assertThat(aggregateIds(transport.acknowledged))
        .as("the good rows around the bad one are published")
        .contains("good-before", "good-after");
    if (expected != null) {
      assertThat(refused)
          .as("refused at insert: %s", bad.substring(0, Math.min(bad.length(), 300)))
          .isNotNull();
      assertThat(refused.getMessage()).contains(expected);
      assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
          .isZero();
    } else {
      assertThat(refused).as("the database cannot check this rule").isNull();
      assertThat(quarantinedReasons(db))
          .as("the relay quarantined the row it cannot decode, naming the rule")
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .startsWith(violation.rule() + ": invalid event: " + violation.column());
    }
  }

  /** {@code last_error} of every row quarantined as not an event. */
  private static List<String> quarantinedReasons(OutboxDatabase db) {
    List<String> reasons = new ArrayList<>();
    try (Connection c = db.dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT last_error FROM tandem_outbox WHERE quarantined_at IS NOT NULL"
                    + " AND published_at IS NULL AND error_class = 'INVALID_EVENT' ORDER BY id")) {
      while (rs.next()) {
        reasons.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return reasons;
  }

  /**
   * The database and Java agree on every white-space and control character, and on their neighbours
   * that are neither: in a name at either end, in a name's middle, and as a whole header value.
   */
  @Test
  void theDatabaseAndJavaAgreeOnEveryWhiteSpaceAndControlCharacter() throws SQLException {
    List<Integer> characters = new ArrayList<>();
    for (int c = 1; c <= 0x3000; c++) {
      if (EventRule.isWhiteSpace(c) || EventRule.isControl(c)) {
        characters.add(c);
      }
    }
    characters.addAll(List.of(0x41, 0xA1, 0x180E, 0x200B, 0x2060, 0x3001, 0xFEFF, 0x1F600));
    try (Connection connection = db.dataSource.getConnection()) {
      connection.setAutoCommit(false);
      for (int c : characters) {
        agreeOn(connection, c);
      }
    }
  }

  private void agreeOn(Connection connection, int c) throws SQLException {
    String ch = Character.toString(c);
    for (String name : List.of(ch + "x", "x" + ch, "x" + ch + "x")) {
      assertAgree(
          connection, insert(db, name, 1, null, null), javaRefuses(() -> valid(name, "{}")), name);
    }
    // JSON needs an escape for the characters below U+0020
    String value = c < 0x20 ? String.format("\\u%04x", c) : ch;
    String headers = "{\"tenant\": \"" + value + "\"}";
    assertAgree(
        connection,
        insert(db, "h", 1, "headers", db.literal(headers)),
        javaRefuses(() -> valid("h", headers)),
        headers);
  }

  private static Event valid(String aggregateId, String headers) {
    return Event.builder()
        .aggregate("Order", aggregateId, 1)
        .eventType("OrderChanged")
        .payload("{}")
        .headers(io.tandem.core.EventHeaders.fromJson(headers))
        .build();
  }

  private static boolean javaRefuses(Runnable build) {
    try {
      build.run();
      return false;
    } catch (io.tandem.core.InvalidEventException e) {
      return true;
    }
  }

  private static void assertAgree(Connection c, String insert, boolean javaRefuses, String value)
      throws SQLException {
    String shown =
        value
            .codePoints()
            .mapToObj(cp -> String.format("U+%04X", cp))
            .collect(Collectors.joining(" "));
    try (Statement s = c.createStatement()) {
      try {
        s.execute(insert);
      } finally {
        c.rollback(); // tried, never kept
      }
      assertThat(javaRefuses).as("the database accepts %s, Java refuses it", shown).isFalse();
    } catch (SQLException refused) {
      assertThat(javaRefuses)
          .as("the database refuses %s (%s), Java accepts it", shown, refused.getMessage())
          .isTrue();
    }
  }

  @Test
  void everyRuleOfTheEnvelopeHasViolationsInTheTable() {
    assertThat(violations().stream().map(Violation::rule).collect(Collectors.toSet()))
        .containsExactlyInAnyOrderElementsOf(
            Stream.of(EventRule.values()).map(EventRule::name).toList());
  }

  /**
   * Rows a schema without the rules let in stay in the table after the migration (its constraints
   * do not check old rows): the relay quarantines each, under its partition's epoch, with the rule
   * it breaks, holds back the later versions of its aggregate, and publishes every other row of the
   * same read. A row whose only fault is its size is published: the relay does not re-apply a
   * writer's limits, the database checks them for new rows.
   */
  @Test
  void rowsWrittenBeforeTheRulesAreQuarantinedByTheRelayAndTheRestOfTheReadIsPublished()
      throws SQLException {
    try (OutboxDatabase old = openDatabase("outbox_rules_old", lastVersionWithoutTheRules())) {
      Map<String, Violation> accepted = new LinkedHashMap<>();
      List<String> withLaterVersion = new ArrayList<>();
      int i = 0;
      for (Violation violation : violations()) {
        String aggregate = "bad-" + i++;
        old.execute(insert(old, "good-" + i, 1, null, null));
        try {
          old.execute(insert(old, aggregate, 1, violation.column(), violation.value().apply(old)));
        } catch (SQLException refusedAlready) {
          continue; // a rule the old schema checked already
        }
        accepted.put(aggregate, violation);
        if (!violation.column().startsWith("aggregate_")) {
          old.execute(insert(old, aggregate, 2, null, null));
          withLaterVersion.add(aggregate);
        }
      }
      assertThat(accepted.values().stream().map(Violation::rule).collect(Collectors.toSet()))
          .as("rules the old schema did not check")
          .contains(
              "NAME_CONTROL_CHARACTERS",
              "NAME_SURROUNDING_SPACE",
              "HEADER_KEY_FORMAT",
              "HEADER_KEY_RESERVED",
              "HEADER_VALUE_STRING",
              "HEADER_VALUE_NOT_BLANK",
              "TRACEPARENT_FORMAT",
              "OCCURRED_AT_RANGE",
              "PAYLOAD_SIZE",
              "HEADERS_SIZE");
      assertThat(Migrations.migrate(old.dataSource)).isPositive();

      RecordingTransport transport = drainWithRelay(old);

      Set<String> published = aggregateIds(transport.acknowledged);
      assertThat(published)
          .as("every good row of the read")
          .containsAll(IntStream.rangeClosed(1, i).mapToObj(n -> "good-" + n).toList());
      List<String> expectedRules = new ArrayList<>();
      int held = 0;
      for (Map.Entry<String, Violation> bad : accepted.entrySet()) {
        String rule = bad.getValue().rule();
        if (rule.endsWith("_SIZE") || rule.equals("NAME_LENGTH")) {
          continue; // published
        }
        expectedRules.add(rule);
        if (withLaterVersion.contains(bad.getKey())) {
          held++;
          assertThat(transport.acknowledged)
              .as("the later version of %s's aggregate waits behind it", bad.getValue())
              .noneMatch(e -> e.aggregateId().equals(bad.getKey()));
        }
      }
      assertThat(quarantinedReasons(old))
          .as("one quarantined row per violation, naming its rule")
          .map(r -> r.substring(0, r.indexOf(':')))
          .containsExactlyElementsOf(expectedRules);
      assertThat(
              old.count(
                  "SELECT count(*) FROM tandem_outbox"
                      + " WHERE published_at IS NULL AND quarantined_at IS NULL"))
          .as("only the later versions behind a quarantined row wait")
          .isEqualTo(held);
      assertThat(
              old.count(
                  "SELECT count(*) FROM tandem_outbox o JOIN tandem_relay_partition p"
                      + " ON p.partition_no = o.partition_no"
                      + " WHERE o.error_class = 'INVALID_EVENT' AND p.owner = 'rules'"))
          .as("quarantined by the relay that held the row's partition")
          .isEqualTo(expectedRules.size());
    }
  }
}
