package io.tandem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.core.spi.MessageSink;
import io.tandem.core.spi.MessageSource;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The runner exports its source's lag as {@code tandem.consumer.lag}: NaN where it cannot tell. */
class ConsumerRunnerLagTest {

  @Test
  void theGaugeReadsTheSourcesLagEachTime() throws Exception {
    AtomicLong lag = new AtomicLong(-1);
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
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (InboxDatabase db = InboxDatabase.postgres("runner_lag")) {
      ConsumerRunner.builder()
          .source(source)
          .processor(
              InboxProcessor.builder()
                  .dataSource(db.dataSource)
                  .consumer("billing")
                  .on("OrderPlaced", (c, e) -> {})
                  .build())
          .meterRegistry(meters)
          .build();
      var gauge = meters.get("tandem.consumer.lag").tag("consumer", "billing").gauge();

      assertThat(gauge.value()).as("the source cannot tell yet").isNaN();
      lag.set(42);
      assertThat(gauge.value()).isEqualTo(42.0);
      lag.set(0);
      assertThat(gauge.value()).isZero();
    }
  }
}
