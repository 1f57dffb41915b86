package io.tandem.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.Event;
import io.tandem.jdbc.Transactions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The retention contract, run per database by {@link PostgresOutboxRetentionTest} and others. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OutboxRetentionTest {
  private OutboxDatabase db;
  private List<Event> events;

  /** Creates this suite's database on the server under test. */
  abstract OutboxDatabase openDatabase(String prefix);

  @BeforeAll
  void setUp() {
    db = openDatabase("outbox_retention");
  }

  @AfterAll
  void tearDown() {
    if (db != null) {
      db.close();
    }
  }

  /**
   * 100 events (ids in order): 1-60 published 10 days ago, 61 quarantined, 62 skipped, 63-70
   * published 10 days ago, 71 pending (the watermark), 72-90 published 10 days ago, 91-100
   * published just now.
   */
  @BeforeEach
  void fill() throws SQLException {
    db.clearOutbox();
    events = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      events.add(
          Event.builder().aggregate("Order", "o-" + i, 1).eventType("E").payload("{}").build());
    }
    Transactions.inTransaction(
        db.dataSource,
        c -> {
          Outbox.create().appendAll(c, events);
          return null;
        });
    db.execute(
        "UPDATE tandem_outbox SET published_at = "
            + db.ago(Duration.ofDays(10))
            + " WHERE aggregate_id NOT IN ('o-61', 'o-62', 'o-71')");
    db.execute(
        "UPDATE tandem_outbox SET published_at = "
            + db.now()
            + " WHERE aggregate_id IN ("
            + "'o-91','o-92','o-93','o-94','o-95','o-96','o-97','o-98','o-99','o-100')");
    db.execute(
        "UPDATE tandem_outbox SET quarantined_at = "
            + db.ago(Duration.ofDays(20))
            + " WHERE aggregate_id = 'o-61'");
    db.execute(
        "UPDATE tandem_outbox SET skipped_at = "
            + db.ago(Duration.ofDays(20))
            + ", skip_reason = 'test' WHERE aggregate_id = 'o-62'");
  }

  private OutboxRetention retention(int batchSize) {
    return OutboxRetention.builder()
        .dataSource(db.dataSource)
        .retention(Duration.ofDays(7))
        .batchSize(batchSize)
        .build();
  }

  @Test
  void aDryRunReportsAndDeletesNothing() {
    OutboxRetention.RetentionResult preview = retention(10).dryRun();
    assertThat(preview.dryRun()).isTrue();
    assertThat(preview.rows()).isEqualTo(68); // 1-60 and 63-70: below the pending row 71
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isEqualTo(100);
  }

  @Test
  void deletesOnlyOldPublishedRowsBelowTheWatermarkInBatches() {
    OutboxRetention.RetentionResult done = retention(10).run();
    assertThat(done.rows()).isEqualTo(68);
    assertThat(done.batches()).isEqualTo(7);
    assertThat(db.count("SELECT count(*) FROM tandem_outbox")).isEqualTo(32);
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
        .as("quarantined, skipped and pending rows all stay")
        .isEqualTo(3);
    assertThat(
            db.count(
                "SELECT count(*) FROM tandem_outbox WHERE aggregate_id IN"
                    + " ('o-61', 'o-62', 'o-71')"))
        .isEqualTo(3);
    assertThat(retention(10).dryRun().rows()).isZero();
  }

  @Test
  void onceThePendingRowIsPublishedTheWatermarkMovesOn() throws SQLException {
    db.execute(
        "UPDATE tandem_outbox SET published_at = "
            + db.ago(Duration.ofDays(10))
            + " WHERE aggregate_id = 'o-71'");
    assertThat(retention(1000).run().rows()).isEqualTo(88); // all old published rows
    assertThat(db.count("SELECT count(*) FROM tandem_outbox WHERE published_at IS NULL"))
        .isEqualTo(2);
  }

  @Test
  void aTooShortRetentionIsRefused() {
    assertThatThrownBy(
            () ->
                OutboxRetention.builder()
                    .dataSource(db.dataSource)
                    .retention(Duration.ofSeconds(5))
                    .build())
        .hasMessageContaining("retention must be at least one minute, was PT5S");
  }

  @Test
  void settingsAreCheckedWithoutADataSourceAsBuildChecksThem() {
    assertThatThrownBy(
            () -> OutboxRetention.builder().retention(Duration.ofSeconds(5)).checkSettings())
        .hasMessageContaining("retention must be at least one minute, was PT5S");
    assertThatThrownBy(() -> OutboxRetention.builder().maxBatches(0).checkSettings())
        .hasMessageContaining("maxBatches must be at least 1, was 0");
    OutboxRetention.builder().retention(Duration.ofMinutes(1)).checkSettings(); // valid: no throw
  }
}
