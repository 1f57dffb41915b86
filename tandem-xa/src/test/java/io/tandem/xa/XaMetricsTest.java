package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.FaultInjector;
import io.tandem.testkit.RequiresMariaDb;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The oldest in-doubt age as Prometheus scrapes it, under the name the alert rule in
 * io/tandem/xa/alerts.yml uses.
 */
@RequiresMariaDb
class XaMetricsTest {

  @Test
  void theOldestInDoubtAgeIsScrapedUnderTheAlertRulesName() throws Exception {
    try (Bank bank = new Bank("xa_metrics")) {
      try (XaCoordinator xa =
          bank.coordinator(bank.settings().build())
              .faults(
                  p -> {
                    if (p.equals(FaultInjector.XA_AFTER_PREPARE)) {
                      throw new FaultInjector.SimulatedCrash(p);
                    }
                  })
              .build()) {
        xa.start();
        assertThatThrownBy(() -> xa.inTransaction(tx -> Bank.transfer(tx, "alice", 1)))
            .isInstanceOf(FaultInjector.SimulatedCrash.class);
      }
      // Ten minutes later, as the operations view's clock sees it.
      Clock later = Clock.fixed(Instant.now().plus(Duration.ofMinutes(10)), ZoneOffset.UTC);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      try (XaOperations ops =
              XaOperations.builder()
                  .decisionLog(bank.coordinatorDatabase())
                  .participant("accounts", bank.accountsXa())
                  .participant("ledger", bank.ledgerXa())
                  .clock(later)
                  .build();
          XaMetrics metrics = XaMetrics.register(registry, ops, null, Duration.ofHours(1))) {
        String scrape = registry.scrape();

        assertThat(value(scrape, "tandem_xa_in_doubt_oldest_age")).isBetween(599.0, 700.0);
        assertThat(value(scrape, "tandem_xa_in_doubt")).isEqualTo(2.0);
        assertThat(value(scrape, "tandem_xa_participants_unreachable")).isZero();
        String rules = rules();
        assertThat(rules)
            .contains("max(tandem_xa_in_doubt_oldest_age) > 300")
            .contains("max(tandem_xa_heuristic) > 0")
            .contains("max(tandem_xa_participants_unreachable) > 0");
        assertThat(scrape).contains("tandem_xa_heuristic ").contains("tandem_xa_prepared_foreign ");
      }
    }
  }

  private static double value(String scrape, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? (\\S+)$").matcher(scrape);
    assertThat(m.find()).as(name + " in\n" + scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static String rules() throws Exception {
    try (InputStream in = XaMetrics.class.getResourceAsStream("alerts.yml")) {
      assertThat(in).as("io/tandem/xa/alerts.yml on the class path").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
