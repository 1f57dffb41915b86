package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import io.tandem.testkit.PrometheusScrape;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The runner exports its source's lag as {@code tandem.consumer.lag}: NaN where it cannot tell. */
class ConsumerRunnerLagTest {

  @Test
  void theGaugeReadsTheSourcesLagEachTime() throws Exception {
    AtomicLong lag = new AtomicLong(-1);
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (InboxDatabase db = InboxDatabase.postgres("runner_lag")) {
      runner(db, lag, meters);
      var gauge = meters.get("tandem.consumer.lag").tag("consumer", "billing").gauge();

      assertThat(gauge.value()).as("the source cannot tell yet").isNaN();
      lag.set(42);
      assertThat(gauge.value()).isEqualTo(42.0);
      lag.set(0);
      assertThat(gauge.value()).isZero();
    }
  }

  /** The runner's gauges by their Prometheus names, as {@code /metrics} serves them. */
  @Test
  void theLagAndInFlightReadBackFromThePrometheusScrapeByName() throws Exception {
    AtomicLong lag = new AtomicLong(17);
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (InboxDatabase db = InboxDatabase.postgres("runner_lag")) {
      runner(db, lag, meters);
      PrometheusScrape scrape = PrometheusScrape.parse(meters.scrape());
      assertThat(scrape.value("tandem_consumer_lag", "consumer", "billing")).isEqualTo(17);
      assertThat(scrape.value("tandem_consumer_in_flight", "consumer", "billing")).isZero();
      assertThat(scrape.value("tandem_consumer_lane_failures_total", "consumer", "billing"))
          .isZero();
      lag.set(-1);
      assertThat(
              PrometheusScrape.parse(meters.scrape())
                  .value("tandem_consumer_lag", "consumer", "billing"))
          .as("a source that cannot tell")
          .isNaN();
    }
  }

  private static ConsumerRunner runner(InboxDatabase db, AtomicLong lag, MeterRegistry meters) {
    MessageSource source =
        new MessageSource() {
          @Override
          public String transport() {
            return "test";
          }

          @Override
          public String describe() {
            return "test source";
          }

          @Override
          public void start(MessageSink sink) {}

          @Override
          public boolean isRunning() {
            return false;
          }

          @Override
          public OptionalLong lag() {
            return lag.get() < 0 ? OptionalLong.empty() : OptionalLong.of(lag.get());
          }

          @Override
          public void close() {}
        };
    return ConsumerRunner.builder()
        .source(source)
        .processor(
            InboxProcessor.builder()
                .dataSource(db.dataSource)
                .consumer("billing")
                .on("OrderPlaced", (c, e) -> {})
                .build())
        .meterRegistry(meters)
        .build();
  }
}
