package io.tandem.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.IsolatedDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** An idle outbox with heartbeats keeps the slot from holding the WAL others write. */
@Tag("slow")
class CdcHeartbeatTest {
  private static final long NOISE_BYTES = 32L * 1024 * 1024;

  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  @Test
  void heartbeatsKeepAnIdleSlotsLagBounded() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_heartbeat");
    String slot = CdcTestSupport.unique("heartbeat");
    CdcOperations operations = new CdcOperations(database.dataSource());
    try (KafkaTransport transport = CdcTestSupport.transport(CdcTestSupport.newTopic("cdc-hb"));
        CdcRelay relay =
            CdcRelay.builder()
                .jdbcUrl(database.jdbcUrl())
                .transport(transport)
                .slotName(slot)
                .heartbeatInterval(Duration.ofMillis(500))
                .offsetFlushInterval(Duration.ofMillis(200))
                .monitorInterval(Duration.ofMillis(500))
                .build()) {
      relay.start();
      // WAL written by others: the outbox stays idle
      try (Connection c = database.dataSource().getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE noise (id bigint, filler text)");
        s.execute(
            "INSERT INTO noise SELECT g, repeat('x', 1000) FROM generate_series(1, "
                + NOISE_BYTES / 1000
                + ") g");
      }
      assertThat(operations.status(slot, Long.MAX_VALUE, Duration.ofDays(1)).slotLagBytes())
          .as("the noise is WAL the slot holds at first")
          .isGreaterThan(NOISE_BYTES / 2);
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          operations
                              .status(slot, Long.MAX_VALUE, Duration.ofDays(1))
                              .slotLagBytes())
                      .as("slot lag after heartbeats")
                      .isLessThan(NOISE_BYTES / 4));
      CdcStatus status = operations.status(slot, Long.MAX_VALUE, Duration.ofDays(1));
      assertThat(status.slotActive()).isTrue();
      assertThat(status.lastHeartbeatRowAt()).isPresent();
      assertThat(relay.status().lastHeartbeatAt()).isPresent();
    }
  }
}
