package io.tandem.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.cdc.internal.SlotMonitor;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PrometheusScrape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CDC slot's signals by their Prometheus names: WAL written while no relay streams from the
 * slot shows as {@code tandem_cdc_slot_lag_bytes}, and past the alert threshold as {@code
 * tandem_cdc_lagging}.
 */
class SlotMonitorMetricsTest {
  private static final long NOISE_BYTES = 2L * 1024 * 1024;

  private IsolatedDatabase database;

  @AfterEach
  void dropDatabase() {
    CdcTestSupport.dropSlotsAndClose(database);
  }

  @Test
  void walTheSlotHoldsReadsBackAsSlotLagByName() throws Exception {
    database = CdcTestSupport.migratedDatabase("cdc_slot_metrics");
    String slot = CdcTestSupport.unique("metrics");
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SlotMonitor monitor =
        new SlotMonitor(
            database.dataSource(),
            io.tandem.cdc.internal.PostgresCdcDialect.INSTANCE,
            slot,
            NOISE_BYTES / 2,
            Duration.ofHours(1),
            meters,
            () -> 0);
    monitor.look();
    assertThat(scrape(meters).value("tandem_cdc_slot_lag_bytes", "slot", slot))
        .as("no slot yet")
        .isEqualTo(-1);

    try (Connection c = database.dataSource().getConnection();
        Statement s = c.createStatement()) {
      try (PreparedStatement ps =
          c.prepareStatement("SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
        ps.setString(1, slot);
        ps.execute();
      }
      monitor.look();
      PrometheusScrape fresh = scrape(meters);
      assertThat(fresh.value("tandem_cdc_slot_lag_bytes", "slot", slot))
          .isLessThan(NOISE_BYTES / 2);
      assertThat(fresh.value("tandem_cdc_lagging", "slot", slot)).isZero();

      s.execute("CREATE TABLE noise (id int, filler text)");
      s.execute(
          "INSERT INTO noise SELECT g, repeat('x', 1000) FROM generate_series(1, "
              + NOISE_BYTES / 1000
              + ") g");
    }
    monitor.look();
    PrometheusScrape held = scrape(meters);
    assertThat(held.value("tandem_cdc_slot_lag_bytes", "slot", slot))
        .as("the WAL written since the slot was created, which nobody confirmed")
        .isGreaterThan(NOISE_BYTES);
    assertThat(held.value("tandem_cdc_lagging", "slot", slot)).isEqualTo(1);
    assertThat(held.value("tandem_cdc_pending", "slot", slot)).isZero();
    assertThat(held.value("tandem_cdc_lag_seconds", "slot", slot)).isZero();
  }

  private static PrometheusScrape scrape(PrometheusMeterRegistry meters) {
    return PrometheusScrape.parse(meters.scrape());
  }
}
