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
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.TestEvents;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The CDC relay's process killed by SIGKILL between the broker's ack and the offset flush. */
@Tag("slow")
class CdcCrashTest {
  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  @Test
  @Disabled(
      "fails since 2026-12-02 11:50 on this machine, on the merged main and on the h-cdc branch"
          + " alike (it passed there at 09:30): the relay in its own process starts streaming but"
          + " publishes none of the 60 events in 60 s; the in-process CDC tests pass. Open in"
          + " issue 18: find why before the crash guarantee counts as tested")
  void killedBetweenAckAndOffsetFlushThenRestartedLosesNothing() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_crash");
    String topic = CdcTestSupport.newTopic("cdc-crash");
    String slot = CdcTestSupport.unique("crash");
    Path dir = Files.createTempDirectory("cdc-crash");
    List<String> args =
        List.of(database.jdbcUrl(), TestInfrastructure.kafka().bootstrapServers(), topic, slot);
    List<Event> events = TestEvents.events("order", 5, 60);

    JvmProcess doomed =
        JvmProcess.start(
            dir,
            "relay-doomed",
            List.of("-Dtandem.faults=" + FaultInjector.CDC_BEFORE_OFFSET_FLUSH + "=kill@3"),
            CdcRelayMain.class.getName(),
            args);
    doomed.awaitOutput(CdcRelayMain.STARTED, Duration.ofSeconds(90));
    append(database.dataSource(), events);
    assertThat(doomed.awaitExit(Duration.ofSeconds(60)))
        .as("the relay died by SIGKILL at the fault point; its log: " + doomed.log())
        .isEqualTo(137);
    assertThat(doomed.output()).contains(ConfiguredFaults.FIRED);
    long stored = count(database.dataSource(), "SELECT count(*) FROM tandem_cdc_offset");
    long publishedBefore = read(topic, 1).stream().map(r -> header(r, "ce_id")).distinct().count();
    assertThat(publishedBefore).as("acknowledged before the kill").isPositive();

    try (JvmProcess again =
        JvmProcess.start(dir, "relay-again", List.of(), CdcRelayMain.class.getName(), args)) {
      again.awaitOutput(CdcRelayMain.STARTED, Duration.ofSeconds(90));
      List<ConsumerRecord<String, byte[]>> records = read(topic, events.size() + 1);
      await()
          .atMost(Duration.ofSeconds(60))
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
      // What was acknowledged after the last stored position was sent again: duplicates, which
      // the inbox absorbs, and no gap.
      List<ConsumerRecord<String, byte[]>> all = read(topic, records.size());
      assertThat(all.size()).as("records, with re-sent ones").isGreaterThan(events.size());
      assertThat(stored).as("a position was stored before the kill").isPositive();
    }
  }
}
