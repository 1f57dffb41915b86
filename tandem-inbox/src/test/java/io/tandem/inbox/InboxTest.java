package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.Event;
import io.tandem.jdbc.Transactions;
import io.tandem.testkit.PrometheusScrape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The inbox contract, run per database by {@link PostgresInboxTest} and {@link MariaDbInboxTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class InboxTest {
  private InboxDatabase database;
  private DataSource ds;
  private Inbox inbox;

  /** Creates this suite's database, with an {@code invoices} table, on the server under test. */
  abstract InboxDatabase openDatabase(String prefix) throws SQLException;

  @BeforeAll
  void setUp() throws SQLException {
    database = openDatabase("inbox");
    ds = database.dataSource;
  }

  @AfterAll
  void tearDown() {
    if (database != null) {
      database.close();
    }
  }

  @BeforeEach
  void clean() throws SQLException {
    execute("DELETE FROM invoices");
    execute("DELETE FROM tandem_inbox");
    inbox = Inbox.builder().dataSource(ds).build();
  }

  private void execute(String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private long count(String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Event event(String orderId) {
    return Event.builder()
        .aggregate("Order", orderId, 1)
        .eventType("OrderConfirmed")
        .payload("{\"orderId\":\"" + orderId + "\"}")
        .build();
  }

  private static void invoice(Connection c, Event e) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("INSERT INTO invoices (order_id, event_id) VALUES (?, ?)")) {
      ps.setString(1, e.aggregateId());
      ps.setObject(2, e.eventId());
      ps.executeUpdate();
    }
  }

  @Test
  void aDuplicateDeliveryIsACountedNoOp() throws SQLException {
    Event e = event("o-1");
    assertThat(inbox.handle("billing", e, InboxTest::invoice)).isEqualTo(HandleResult.APPLIED);
    assertThat(inbox.handle("billing", e, InboxTest::invoice)).isEqualTo(HandleResult.DUPLICATE);
    assertThat(inbox.handle("billing", e, InboxTest::invoice)).isEqualTo(HandleResult.DUPLICATE);
    assertThat(count("SELECT count(*) FROM invoices")).isEqualTo(1);
    assertThat(inbox.appliedCount()).isEqualTo(1);
    assertThat(inbox.duplicateCount()).isEqualTo(2);
  }

  /** {@code Inbox.handle}'s signals by their Prometheus names, as {@code /metrics} serves them. */
  @Test
  void appliedAndDuplicateReadBackFromThePrometheusScrapeByName() throws SQLException {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Inbox counted = Inbox.builder().dataSource(ds).meterRegistry(meters).build();
    Event e = event("o-9");
    counted.handle("billing", e, InboxTest::invoice);
    counted.handle("billing", e, InboxTest::invoice); // a dedup hit
    counted.handle("billing", event("o-10"), InboxTest::invoice);

    PrometheusScrape scrape = PrometheusScrape.parse(meters.scrape());
    assertThat(scrape.value("tandem_inbox_applied_total")).isEqualTo(2);
    assertThat(scrape.value("tandem_inbox_duplicates_total")).isEqualTo(1);
  }

  @Test
  void eachConsumerAppliesTheEventOnce() throws SQLException {
    Event e = event("o-2");
    assertThat(inbox.handle("billing", e, InboxTest::invoice)).isEqualTo(HandleResult.APPLIED);
    assertThat(inbox.handle("audit", e, InboxTest::invoice)).isEqualTo(HandleResult.APPLIED);
    assertThat(count("SELECT count(*) FROM tandem_inbox WHERE event_id = '" + e.eventId() + "'"))
        .isEqualTo(2);
  }

  @Test
  void whenTheWorkFailsNothingIsRecordedAndTheRedeliveryApplies() throws SQLException {
    Event e = event("o-3");
    assertThatThrownBy(
            () ->
                inbox.handle(
                    "billing",
                    e,
                    (c, ev) -> {
                      invoice(c, ev);
                      throw new SQLException("constraint in the side effect", "23514");
                    }))
        .isInstanceOf(SQLException.class)
        .hasMessage("constraint in the side effect");
    assertThat(count("SELECT count(*) FROM invoices")).isZero();
    assertThat(count("SELECT count(*) FROM tandem_inbox")).isZero();

    assertThat(inbox.handle("billing", e, InboxTest::invoice)).isEqualTo(HandleResult.APPLIED);
    assertThat(count("SELECT count(*) FROM invoices")).isEqualTo(1);
  }

  @Test
  void concurrentDeliveriesOfOneEventApplyItOnce() throws Exception {
    Event e = event("o-4");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<HandleResult>> tasks = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        tasks.add(() -> inbox.handle("billing", e, InboxTest::invoice));
      }
      List<HandleResult> results = new ArrayList<>();
      for (Future<HandleResult> f : pool.invokeAll(tasks)) {
        results.add(f.get());
      }
      assertThat(results).containsOnlyOnce(HandleResult.APPLIED);
      assertThat(results).filteredOn(r -> r == HandleResult.DUPLICATE).hasSize(7);
    } finally {
      pool.shutdownNow();
    }
    assertThat(count("SELECT count(*) FROM invoices")).isEqualTo(1);
  }

  @Test
  void handleInJoinsTheCallersTransaction() throws SQLException {
    Event e = event("o-5");
    assertThatThrownBy(
            () ->
                Transactions.inTransaction(
                    ds,
                    c -> {
                      inbox.handleIn(c, "billing", e, InboxTest::invoice);
                      throw new IllegalStateException("caller rolls back");
                    }))
        .hasMessage("caller rolls back");
    assertThat(count("SELECT count(*) FROM tandem_inbox")).isZero();
    assertThat(count("SELECT count(*) FROM invoices")).isZero();

    Transactions.inTransaction(ds, c -> inbox.handleIn(c, "billing", e, InboxTest::invoice));
    assertThat(count("SELECT count(*) FROM invoices")).isEqualTo(1);
  }

  @Test
  void aBadConsumerNameIsRefused() {
    assertThatThrownBy(() -> inbox.handle("bill ing", event("o-6"), InboxTest::invoice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consumer name 'bill ing' is invalid");
  }
}
