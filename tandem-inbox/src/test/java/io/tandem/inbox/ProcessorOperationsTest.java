package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.Event;
import io.tandem.core.RetryPolicy;
import io.tandem.jdbc.Dialect;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.PrometheusScrape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Around the processor: retention, a handler appending to its own outbox, the metrics by Prometheus
 * name, the gap alert, the builder's messages. Subclassed per database.
 */
abstract class ProcessorOperationsTest extends ProcessorFixture {
  @Test
  void retentionPurgesOldRecordsInBatchesAndRefusesAWindowShorterThanReplay() throws SQLException {
    InboxProcessor p = processor().ordered(false).build();
    for (int i = 1; i <= 25; i++) {
      p.process(TestMessage.of(event("r-" + i, 1)));
    }
    try (Connection c = db.dataSource.getConnection();
        Statement s = c.createStatement()) {
      boolean postgres = Dialect.of(c).name().equals("postgresql");
      s.executeUpdate(
          postgres
              ? "UPDATE tandem_inbox SET processed_at = processed_at - interval '20 days'"
              : "UPDATE tandem_inbox SET processed_at = processed_at - INTERVAL 20 DAY");
    }
    InboxRetention retention =
        InboxRetention.builder().dataSource(db.dataSource).batchSize(10).build();

    long eligible = retention.dryRun();
    assertThat(eligible).isGreaterThanOrEqualTo(25);
    assertThat(retention.dryRun()).as("a dry run deletes nothing").isEqualTo(eligible);
    assertThat(retention.run()).isEqualTo(eligible);
    assertThat(retention.dryRun()).isZero();
    assertThatThrownBy(
            () ->
                InboxRetention.builder()
                    .dataSource(db.dataSource)
                    .retention(Duration.ofDays(3))
                    .maxReplayWindow(Duration.ofDays(7))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shorter than the broker's maximum replay window");
  }

  @Test
  void aHandlerAppendsToItsOwnOutboxInTheSameTransaction() throws SQLException {
    Outbox outbox = Outbox.create();
    AtomicInteger failures = new AtomicInteger(1);
    InboxProcessor p =
        InboxProcessor.builder()
            .dataSource(db.dataSource)
            .consumer(consumer)
            .retryPolicy(RetryPolicy.builder().base(Duration.ofMillis(1)).maxAttempts(3).build())
            .on(
                "OrderPlaced",
                (c, e) -> {
                  invoice(c, e);
                  outbox.append(
                      c,
                      Event.builder()
                          .aggregate("Invoice", e.aggregateId() + "@" + consumer, 1)
                          .eventType("InvoiceCreated")
                          .payload("{\"order\":\"" + e.aggregateId() + "\"}")
                          .build());
                  if (failures.getAndDecrement() > 0) {
                    throw new IllegalStateException("fails once after writing both rows");
                  }
                })
            .build();

    assertThat(p.process(TestMessage.of(event("o-1", 1)))).isEqualTo(Outcome.APPLIED);

    assertThat(invoices()).containsExactly("o-1#1");
    try (Connection c = db.dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM tandem_outbox WHERE aggregate_id = ?")) {
      ps.setString(1, "o-1@" + consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getLong(1)).as("the failed attempt's reply rolled back").isEqualTo(1);
      }
    }
  }

  /**
   * The consumer signals of docs/operations.md, driven for real and read back by their Prometheus
   * names from the text {@code /metrics} serves. Also catches two meters whose Prometheus names
   * collide (a counter {@code x.total} and a gauge {@code x}): the registry drops one of them.
   */
  @Test
  void consumerSignalsReadBackFromThePrometheusScrapeByName() {
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InboxProcessor p =
        processor()
            .on(
                "OrderBroken",
                (c, e) -> {
                  throw new IllegalStateException("this handler always fails");
                })
            .gapAlertAfter(Duration.ofMillis(200))
            .meterRegistry(meters)
            .build();
    TestMessage first = TestMessage.of(event("o-1", 1));
    assertThat(p.process(first)).isEqualTo(Outcome.APPLIED);
    assertThat(p.process(TestMessage.of(event("o-3", 1, "NobodyTakesThis", 1))))
        .isEqualTo(Outcome.SKIPPED);
    assertThat(p.process(TestMessage.of(event("o-4", 1, "OrderBroken", 1))))
        .isEqualTo(Outcome.DEAD_LETTERED); // 3 attempts
    assertThat(p.process(first)).isEqualTo(Outcome.DUPLICATE); // a dedup hit
    assertThat(p.process(TestMessage.of(event("o-1", 3)))).isEqualTo(Outcome.PARKED); // v2 missing
    assertThat(p.process(TestMessage.of(event("o-2", 1, "OrderPlaced", 2))))
        .isEqualTo(Outcome.DEAD_LETTERED); // a newer schema
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(p.checkGaps()).hasSize(1));

    PrometheusScrape scrape = PrometheusScrape.parse(meters.scrape());
    assertThat(scrape.value("tandem_consumer_applied_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_duplicates_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_parkings_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_parked", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_gaps_overdue", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_gap_oldest_seconds", "consumer", consumer))
        .isGreaterThanOrEqualTo(0);
    assertThat(
            scrape.value(
                "tandem_consumer_dead_lettered_total",
                "consumer",
                consumer,
                "reason",
                "UNSUPPORTED_SCHEMA_VERSION"))
        .isEqualTo(1);
    assertThat(
            scrape.value(
                "tandem_consumer_dead_lettered_total",
                "consumer",
                consumer,
                "reason",
                "RETRIES_EXHAUSTED"))
        .isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_dead_letters", "consumer", consumer)).isEqualTo(2);
    assertThat(scrape.value("tandem_consumer_skipped_total", "consumer", consumer)).isEqualTo(1);
    assertThat(scrape.value("tandem_consumer_failed_attempts_total", "consumer", consumer))
        .isEqualTo(3);
  }

  @Test
  void aPredecessorMissingPastTheAlertTimeIsReportedAndMeasured() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    InboxProcessor p =
        processor().gapAlertAfter(Duration.ofMillis(200)).meterRegistry(meters).build();
    p.process(TestMessage.of(event("o-1", 1)));
    p.process(TestMessage.of(event("o-1", 3)));
    p.process(TestMessage.of(event("o-1", 4)));

    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(p.checkGaps()).hasSize(1));

    AggregateGap gap = p.checkGaps().get(0);
    assertThat(gap.waitingFor()).isEqualTo(2);
    assertThat(gap.lastApplied()).hasValue(1);
    assertThat(gap.parked()).isEqualTo(2);
    assertThat(gap.explanation()).contains("has not been delivered yet");
    assertThat(meters.get("tandem.consumer.gaps.overdue").tag("consumer", consumer).gauge().value())
        .isEqualTo(1.0);
    assertThat(meters.get("tandem.consumer.parked").tag("consumer", consumer).gauge().value())
        .isEqualTo(2.0);
  }

  @Test
  void theBuilderNamesWhatIsWrong() {
    assertThatThrownBy(() -> InboxProcessor.builder().consumer("c").on("A", (c, e) -> {}).build())
        .hasMessageContaining("dataSource");
    assertThatThrownBy(
            () -> InboxProcessor.builder().dataSource(db.dataSource).consumer("bad name").build())
        .hasMessageContaining("consumer name 'bad name' is invalid");
    assertThatThrownBy(
            () -> InboxProcessor.builder().dataSource(db.dataSource).consumer("c").build())
        .hasMessageContaining("no handler");
    assertThatThrownBy(() -> InboxProcessor.builder().on("A", (c, e) -> {}).on("A", (c, e) -> {}))
        .hasMessageContaining("has a handler already");
  }
}
