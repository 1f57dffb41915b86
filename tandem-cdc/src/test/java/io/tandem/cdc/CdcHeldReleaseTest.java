package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.header;
import static io.tandem.cdc.CdcTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A relay that starts with a backlog holds the backlog's aggregates for its drain; under a steady
 * load that gives each of them a new row more often than the drain runs, the drain must still hand
 * them back to the stream — else every later event goes through the drain, up to an interval late.
 */
class CdcHeldReleaseTest {
  private static final int AGGREGATES = 20;
  private static final int BACKLOG = 100;
  private static final int CHUNKS = 40;

  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  @Test
  void aggregatesHeldForAStartBacklogGoBackToTheStreamUnderASteadyLoad() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_held_release");
    String topic = CdcTestSupport.newTopic("cdc-held-release");
    String slot = CdcTestSupport.unique("held");
    List<Event> events = TestEvents.events("order", AGGREGATES, BACKLOG + CHUNKS * AGGREGATES);
    append(database.dataSource(), events.subList(0, BACKLOG)); // pending when the relay starts
    try (KafkaTransport transport = CdcTestSupport.transport(topic);
        CdcRelay relay =
            CdcRelay.builder()
                .jdbcUrl(database.jdbcUrl())
                .transport(transport)
                .slotName(slot)
                .relayId("cdc-held")
                .offsetFlushInterval(Duration.ofMillis(200))
                .drainInterval(Duration.ofSeconds(1)) // the default
                .build()) {
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicReference<Throwable> writerFailed = new AtomicReference<>();
      Thread writer =
          new Thread(
              () -> {
                try {
                  // every aggregate gets a new row every 200 ms, five times per drain interval
                  for (int c = 0; c < CHUNKS; c++) {
                    int from = BACKLOG + c * AGGREGATES;
                    append(database.dataSource(), events.subList(from, from + AGGREGATES));
                    Thread.sleep(200); // pacing the load, not waiting for an outcome
                  }
                } catch (Exception e) {
                  writerFailed.set(e);
                } finally {
                  writing.set(false);
                }
              },
              "steady-writer");
      relay.start();
      writer.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> relay.status().heldAggregates() > 0);
      boolean[] releasedWhileWriting = {false};
      await()
          .atMost(Duration.ofSeconds(6))
          .until(
              () -> {
                releasedWhileWriting[0] = writing.get() && relay.status().heldAggregates() == 0;
                return releasedWhileWriting[0] || !writing.get();
              });
      assertThat(releasedWhileWriting[0])
          .as(
              "every held aggregate went back to the stream while the load went on (held now: %d)",
              relay.status().heldAggregates())
          .isTrue();
      writer.join(Duration.ofSeconds(30).toMillis());
      assertThat(writerFailed.get()).isNull();
      assertThat(read(topic, events.size()).stream().map(r -> header(r, "ce_id")).distinct())
          .containsExactlyInAnyOrderElementsOf(
              events.stream().map(e -> e.eventId().toString()).toList());
    }
  }
}
