package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.count;
import static io.tandem.cdc.CdcTestSupport.header;
import static io.tandem.cdc.CdcTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ConfiguredFaults;
import io.tandem.core.Event;
import io.tandem.core.FaultInjector;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.MariaDbBinlogFixture;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CdcCrashTest} on MariaDB's binlog: the relay's process killed by SIGKILL between the
 * broker's ack and the offset flush ({@link FaultInjector#CDC_BEFORE_OFFSET_FLUSH}: the first flush
 * after the burst's first acknowledged batch; MariaDB's connector stores positions of its own at
 * the start, so the fault is armed once the first event's position is stored), restarted on the
 * same stored binlog position and schema history, and every committed event reaches the topic
 * (duplicates allowed: the inbox absorbs them). Skipped without mariadbd unless {@code
 * TANDEM_REQUIRE_TOOLS=1}.
 */
@Tag("slow")
class CdcMariaDbCrashTest {
  @RegisterExtension static final MariaDbBinlogFixture BINLOG = new MariaDbBinlogFixture();

  private IsolatedDatabase database;
  private JvmProcess doomed;

  @AfterEach
  void cleanUp() throws InterruptedException {
    if (doomed != null) {
      doomed.kill();
    }
    if (database != null) {
      database.close();
    }
  }

  @Test
  void killedBetweenAckAndOffsetFlushThenRestartedLosesNothing() throws Exception {
    database = BINLOG.server().createDatabase("cdc_maria_crash");
    Migrations.migrate(database.dataSource());
    String topic = CdcTestSupport.newTopic("cdc-maria-crash");
    String slot = CdcTestSupport.unique("mcrash");
    Path dir = Files.createTempDirectory("cdc-maria-crash");
    List<String> args =
        List.of(
            database.jdbcUrl(),
            TestInfrastructure.kafka().bootstrapServers(),
            topic,
            slot,
            dir.resolve("history").toString());
    List<Event> events = TestEvents.events("order", 5, 60);
    Path armed = dir.resolve("faults-armed");

    doomed =
        JvmProcess.start(
            dir,
            "relay-doomed",
            List.of(
                "-Dtandem.faults=" + FaultInjector.CDC_BEFORE_OFFSET_FLUSH + "=kill@1",
                "-D" + CdcRelayMain.ARMED_BY + "=" + armed),
            CdcRelayMain.class.getName(),
            args);
    doomed.awaitOutput(CdcRelayMain.STARTED, Duration.ofSeconds(120));
    append(database.dataSource(), events.subList(0, 1));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> flushedAfterFirstPublish() && !read(topic, 1).isEmpty());
    // the connector's own start-up positions and the first event's are stored: the next flush is
    // the one after the burst's first acknowledged batch
    Files.createFile(armed);
    append(database.dataSource(), events.subList(1, events.size()));
    assertThat(doomed.awaitExit(Duration.ofSeconds(60)))
        .as("the relay died by SIGKILL at the fault point; its log: " + doomed.log())
        .isEqualTo(137);
    assertThat(doomed.output()).contains(ConfiguredFaults.FIRED);
    long acknowledgedBeforeKill =
        read(topic, 2).stream().map(r -> header(r, "ce_id")).distinct().count();
    assertThat(acknowledgedBeforeKill)
        .as("events of the burst acknowledged before the kill at the offset flush")
        .isGreaterThan(1);
    long unpublishedAtKill =
        count(
            database.dataSource(), "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL");

    JvmProcess again =
        JvmProcess.start(dir, "relay-again", List.of(), CdcRelayMain.class.getName(), args);
    try {
      again.awaitOutput(CdcRelayMain.STARTED, Duration.ofSeconds(120));
      await()
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () -> {
                Set<String> ids =
                    read(topic, events.size()).stream()
                        .map(r -> header(r, "ce_id"))
                        .collect(Collectors.toSet());
                assertThat(ids)
                    .as("every committed event on the topic after the restart")
                    .containsAll(events.stream().map(e -> e.eventId().toString()).toList());
              });
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(
                          count(
                              database.dataSource(),
                              "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
                      .isZero());
      System.out.printf(
          "CdcMariaDbCrashTest: %d events acknowledged before the kill, %d rows unpublished then,"
              + " %d records on the topic after the restart (duplicates: the inbox's)%n",
          acknowledgedBeforeKill, unpublishedAtKill, read(topic, events.size()).size());
      assertThat(storedPositions(slot)).as("a position was stored").isPositive();
    } finally {
      again.close();
    }
  }

  /** The relay stored a position after its first publish (its heartbeat row says when). */
  private boolean flushedAfterFirstPublish() {
    return count(
            database.dataSource(),
            "SELECT count(*) FROM tandem_cdc_relay WHERE last_published_at IS NOT NULL"
                + " AND last_flushed_at > last_published_at")
        > 0;
  }

  private long storedPositions(String slot) {
    return count(
        database.dataSource(),
        "SELECT count(*) FROM tandem_cdc_offset WHERE store_name = '" + slot + "'");
  }
}
