package io.tandem.cdc;

import static io.tandem.cdc.CdcTestSupport.append;
import static io.tandem.cdc.CdcTestSupport.count;
import static io.tandem.cdc.CdcTestSupport.header;
import static io.tandem.cdc.CdcTestSupport.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.PublishException;
import io.tandem.core.RetryPolicy;
import io.tandem.core.spi.PublishOutcome;
import io.tandem.core.spi.Transport;
import io.tandem.kafka.KafkaTransport;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A failed publish holds its aggregate, not the stream; the retry keeps the aggregate's order. */
@Tag("slow")
class CdcFailureTest {
  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  /**
   * Refuses the first event (version 1) of one aggregate, retriably, until told to let it through;
   * its later versions would go through, so only the relay's hold keeps them back.
   */
  static final class RefusingTransport implements Transport {
    final Transport inner;
    final String refusedAggregate;
    volatile boolean refusing = true;
    final AtomicInteger refusals = new AtomicInteger();
    final Map<String, Long> sentWhileRefusing = new ConcurrentHashMap<>();

    RefusingTransport(Transport inner, String refusedAggregate) {
      this.inner = inner;
      this.refusedAggregate = refusedAggregate;
    }

    private boolean refused(Event e) {
      return refusing && e.aggregateId().equals(refusedAggregate) && e.aggregateVersion() == 1;
    }

    @Override
    public String name() {
      return "refusing";
    }

    @Override
    public List<PublishOutcome> publish(List<Event> events, Duration timeout) {
      List<Event> passed = new ArrayList<>();
      for (Event e : events) {
        if (!(refused(e))) {
          passed.add(e);
        }
      }
      List<PublishOutcome> innerOutcomes = inner.publish(passed, timeout);
      List<PublishOutcome> outcomes = new ArrayList<>();
      int next = 0;
      for (Event e : events) {
        if (refused(e)) {
          refusals.incrementAndGet();
          outcomes.add(
              PublishOutcome.failed(
                  e.eventId(),
                  new PublishException(ErrorClass.TIMEOUT, "refused by the test", null)));
        } else {
          if (refusing) {
            sentWhileRefusing.merge(e.aggregateId(), 1L, Long::sum);
          }
          outcomes.add(innerOutcomes.get(next++));
        }
      }
      return outcomes;
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  @Test
  void aFailingAggregateWaitsWhileTheOthersGoOnAndThenFollowsInOrder() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_failure");
    String topic = CdcTestSupport.newTopic("cdc-failure");
    List<Event> events = TestEvents.events("order", 4, 40); // order-0 .. order-3, 10 versions each
    try (KafkaTransport kafka = CdcTestSupport.transport(topic);
        RefusingTransport transport = new RefusingTransport(kafka, "order-0");
        CdcRelay relay =
            CdcRelay.builder()
                .jdbcUrl(database.jdbcUrl())
                .transport(transport)
                .slotName(CdcTestSupport.unique("failure"))
                .offsetFlushInterval(Duration.ofMillis(200))
                .drainInterval(Duration.ofMillis(100))
                .retryPolicy(
                    RetryPolicy.builder()
                        .base(Duration.ofMillis(20))
                        .cap(Duration.ofMillis(200))
                        .build())
                .build()) {
      relay.start();
      append(database.dataSource(), events);

      // the three other aggregates are published while order-0's first version is refused, and
      // none of order-0's later versions goes before it
      List<ConsumerRecord<String, byte[]>> others = read(topic, 30);
      assertThat(others).hasSize(30);
      assertThat(others).noneMatch(r -> r.key().equals("order-0"));
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(
                          count(
                              database.dataSource(),
                              "SELECT max(attempts) FROM tandem_outbox"
                                  + " WHERE aggregate_id = 'order-0' AND published_at IS NULL"))
                      .as("the refused head is retried with its attempts recorded")
                      .isGreaterThanOrEqualTo(2));
      assertThat(relay.status().heldAggregates()).isEqualTo(1);

      transport.refusing = false;
      List<ConsumerRecord<String, byte[]>> all = read(topic, 40);
      List<Long> order0 =
          all.stream()
              .filter(r -> r.key().equals("order-0"))
              .sorted((a, b) -> Long.compare(a.offset(), b.offset()))
              .map(r -> Long.parseLong(header(r, "ce_sequence")))
              .toList();
      assertThat(order0).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                assertThat(
                        count(
                            database.dataSource(),
                            "SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
                    .isZero();
                assertThat(relay.status().heldAggregates()).isZero();
              });
    }
  }
}
