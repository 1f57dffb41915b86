package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.count;
import static io.tandem.cdc.CdcTestSupport.header;
import static io.tandem.cdc.CdcTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.jdbc.Migrations;
import io.tandem.kafka.KafkaTransport;
import io.tandem.outbox.Outbox;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.MariaDbBinlogFixture;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CDC relay on MariaDB's binlog, against a second mariadbd of this test's own with the binlog
 * on ({@link MariaDbBinlogFixture}). Skipped when mariadbd is not installed, unless {@code
 * TANDEM_REQUIRE_TOOLS=1}, which makes that a failure (CI).
 */
@Tag("slow")
class CdcMariaDbTest {
  @RegisterExtension static final MariaDbBinlogFixture BINLOG = new MariaDbBinlogFixture();

  @TempDir Path history;
  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  private IsolatedDatabase migrated(String name) {
    IsolatedDatabase db = BINLOG.server().createDatabase(name);
    Migrations.migrate(db.dataSource());
    return db;
  }

  private CdcRelay.Builder relay(String jdbcUrl, String slot, KafkaTransport transport) {
    return CdcRelay.builder()
        .jdbcUrl(jdbcUrl)
        .transport(transport)
        .slotName(slot)
        .relayId("cdc-test")
        .schemaHistoryDirectory(history)
        .offsetFlushInterval(Duration.ofMillis(200))
        .drainInterval(Duration.ofMillis(200))
        .monitorInterval(Duration.ofMillis(500))
        .heartbeatInterval(Duration.ofMillis(500))
        .startTimeout(Duration.ofSeconds(60));
  }

  @Test
  void publishesEveryInsertInAggregateOrderTheSameBytesAsThePollingRelay() throws Exception {
    database = migrated("cdc_maria_delivery");
    String cdcTopic = CdcTestSupport.newTopic("cdc-maria");
    String pollingTopic = CdcTestSupport.newTopic("polling-maria");
    String slot = CdcTestSupport.unique("maria");
    List<Event> events = TestEvents.events("order", 5, 60);
    try (KafkaTransport cdcTransport = CdcTestSupport.transport(cdcTopic);
        KafkaTransport pollingTransport = CdcTestSupport.transport(pollingTopic)) {
      try (CdcRelay relay = relay(database.jdbcUrl(), slot, cdcTransport).build()) {
        relay.start();
        // start() returns once the connector reads the binlog: a row committed now is streamed
        assertThat(
                count(
                    database.dataSource(),
                    "SELECT count(*) FROM information_schema.processlist"
                        + " WHERE command LIKE 'Binlog Dump%'"))
            .as("binlog readers when start() returned")
            .isPositive();
        append(database.dataSource(), events);
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    count(
                            database.dataSource(),
                            "SELECT count(*) FROM tandem_outbox WHERE published_at IS NOT NULL"
                                + " AND published_by = 'cdc-test'")
                        == events.size());
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    count(
                            database.dataSource(),
                            "SELECT count(*) FROM tandem_cdc_offset WHERE store_name = '"
                                + slot
                                + "'")
                        > 0);
      }
      List<ConsumerRecord<String, byte[]>> fromCdc = read(cdcTopic, events.size());
      assertThat(fromCdc).hasSize(events.size());
      Map<String, List<Long>> versions = new HashMap<>();
      fromCdc.stream()
          .sorted(
              (a, b) ->
                  a.partition() != b.partition()
                      ? Integer.compare(a.partition(), b.partition())
                      : Long.compare(a.offset(), b.offset()))
          .forEach(
              r ->
                  versions
                      .computeIfAbsent(r.key(), k -> new ArrayList<>())
                      .add(Long.parseLong(header(r, "ce_sequence"))));
      versions.forEach(
          (aggregate, seen) -> assertThat(seen).as(aggregate).isSorted().doesNotHaveDuplicates());

      try (Connection c = database.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.executeUpdate("UPDATE tandem_outbox SET published_at = NULL, published_by = NULL");
      }
      OutboxRelay polling =
          OutboxRelay.builder()
              .dataSource(database.dataSource())
              .transport(pollingTransport)
              .relayId("polling")
              .build();
      try {
        while (polling.runOnce() > 0) {
          // until nothing is due
        }
      } finally {
        polling.close();
      }
      List<ConsumerRecord<String, byte[]>> fromPolling = read(pollingTopic, events.size());
      assertThat(fromPolling).hasSize(events.size());
      assertThat(CdcRelayTest.messagesById(fromCdc))
          .hasSize(events.size())
          .isEqualTo(CdcRelayTest.messagesById(fromPolling));
    }
  }

  @Test
  void doesNotPublishARowOfAnXaBranchPreparedThenRolledBack() throws Exception {
    database = migrated("cdc_maria_xa");
    String topic = CdcTestSupport.newTopic("cdc-maria-xa");
    String slot = CdcTestSupport.unique("xa");
    Event rolledBack = TestEvents.event("order", "xa-1", 1);
    Event committedXa = TestEvents.event("order", "xa-2", 1);
    Event after = TestEvents.event("order", "plain-1", 1);
    Outbox outbox = Outbox.create();
    try (KafkaTransport transport = CdcTestSupport.transport(topic);
        CdcRelay relay = relay(database.jdbcUrl(), slot, transport).build()) {
      relay.start();
      // streaming: the binlog position is fixed, so the XA rows below are in the stream
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> relay.status().lastHeartbeatAt().isPresent());
      try (Connection c = database.dataSource().getConnection();
          Statement s = c.createStatement()) {
        c.setAutoCommit(false); // Outbox.append asks for the caller's transaction: the XA branch
        s.execute("XA START 'tandem-xa-1'");
        outbox.append(c, rolledBack);
        s.execute("XA END 'tandem-xa-1'");
        s.execute("XA PREPARE 'tandem-xa-1'");
        s.execute("XA ROLLBACK 'tandem-xa-1'");

        s.execute("XA START 'tandem-xa-2'");
        outbox.append(c, committedXa);
        s.execute("XA END 'tandem-xa-2'");
        s.execute("XA PREPARE 'tandem-xa-2'");
        Thread.sleep(1500); // the stream reaches the prepared branch and waits for its outcome
        s.execute("XA COMMIT 'tandem-xa-2'");
        c.setAutoCommit(true);
      }
      append(database.dataSource(), List.of(after));

      List<ConsumerRecord<String, byte[]>> records = read(topic, 2);
      assertThat(records.stream().map(r -> header(r, "ce_id")))
          .containsExactlyInAnyOrder(committedXa.eventId().toString(), after.eventId().toString());
      assertThat(records.stream().map(r -> header(r, "ce_id")))
          .doesNotContain(rolledBack.eventId().toString());
    }
  }

  @Test
  void refusesAServerWithoutBinlog() {
    // The machine's MariaDB runs without a binlog.
    String url = TestInfrastructure.mariadb().jdbcUrl();
    Assumptions.assumeTrue(
        count(TestInfrastructure.mariadb().dataSource(), "SELECT @@log_bin") == 0,
        "the shared MariaDB has its binlog on");
    try (KafkaTransport transport = CdcTestSupport.transport("unused");
        CdcRelay relay = relay(url, "nobinlog", transport).build()) {
      assertThatThrownBy(relay::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("binary log is off (log_bin = OFF)")
          .hasMessageContaining("restart MariaDB");
    }
  }

  @Test
  void refusesStatementBinlogFormat() throws Exception {
    database = migrated("cdc_maria_format");
    try (Connection c = BINLOG.server().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET GLOBAL binlog_format = 'STATEMENT'");
      try (KafkaTransport transport = CdcTestSupport.transport("unused");
          CdcRelay relay = relay(database.jdbcUrl(), "format", transport).build()) {
        assertThatThrownBy(relay::start)
            .isInstanceOf(CdcSetupException.class)
            .hasMessageContaining("binlog_format is 'STATEMENT'")
            .hasMessageContaining("SET GLOBAL binlog_format = 'ROW'");
      } finally {
        s.execute("SET GLOBAL binlog_format = 'ROW'");
      }
    }
  }

  @Test
  void refusesAUserWithoutReplicationPrivileges() throws Exception {
    database = migrated("cdc_maria_grants");
    try (Connection c = BINLOG.server().dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE USER IF NOT EXISTS 'cdc_weak'@'%' IDENTIFIED BY 'weak-secret'");
      s.execute("GRANT SELECT, INSERT, UPDATE ON *.* TO 'cdc_weak'@'%'");
      s.execute("GRANT RELOAD ON *.* TO 'cdc_weak'@'%'");
    }
    String url =
        database.jdbcUrl().replaceAll("user=[^&]*", "user=cdc_weak") + "&password=weak-secret";
    try (KafkaTransport transport = CdcTestSupport.transport("unused");
        CdcRelay relay = relay(url, "grants", transport).build()) {
      assertThatThrownBy(relay::start)
          .isInstanceOf(CdcSetupException.class)
          .hasMessageContaining("'cdc_weak'@'%' lacks REPLICATION SLAVE, REPLICATION CLIENT,")
          .hasMessageContaining("GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO")
          .hasMessageNotContaining("weak-secret");
    }
  }
}
