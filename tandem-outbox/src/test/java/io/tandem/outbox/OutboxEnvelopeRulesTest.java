package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
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

  /** Creates this suite's database on the server under test. */
  abstract OutboxDatabase openDatabase(String prefix);

  @BeforeAll
  void setUp() {
    db = openDatabase("outbox_rules");
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

  /** The columns of the plain insert and the expressions of a valid row. */
  private String insert(String aggregateId, String column, String expression) {
    String[][] columns = {
      {"event_id", db.randomUuid()},
      {"aggregate_type", "'Order'"},
      {"aggregate_id", db.literal(aggregateId)},
      {"aggregate_version", "1"},
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
    RecordingTransport transport = new RecordingTransport();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource)
            .transport(transport)
            .relayId("rules")
            .batchSize(50)
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
      assertThat(
              db.count(
                  "SELECT count(*) FROM tandem_outbox WHERE quarantined_at IS NOT NULL"
                      + " AND published_at IS NULL AND error_class = 'INVALID_EVENT'"))
          .as("the relay quarantined the row it cannot decode")
          .isEqualTo(1);
    }
  }
}
