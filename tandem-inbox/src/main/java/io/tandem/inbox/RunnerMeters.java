package io.tandem.inbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.spi.MessageSource;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A runner's meters, tagged {@code consumer}: the gauges {@code tandem.consumer.in_flight} and
 * {@code tandem.consumer.lag} (NaN where the source cannot tell), and the counter {@code
 * tandem.consumer.lane.failures}, which it returns.
 */
final class RunnerMeters {
  private RunnerMeters() {}

  static Counter register(
      MeterRegistry meters, String consumer, MessageSource source, AtomicLong inFlight) {
    Gauge.builder("tandem.consumer.in_flight", inFlight, AtomicLong::get)
        .description("Messages taken from the source and not yet finished")
        .tag("consumer", consumer)
        .register(meters);
    Gauge.builder(
            "tandem.consumer.lag",
            () -> {
              OptionalLong lag = source.lag();
              return lag.isPresent() ? (double) lag.getAsLong() : Double.NaN;
            })
        .description(
            "Messages of the source not processed yet, as the broker reports it (NaN where the"
                + " source cannot tell)")
        .tag("consumer", consumer)
        .register(meters);
    return Counter.builder("tandem.consumer.lane.failures")
        .description("Failures that escaped the processor or an acknowledgement, retried by a lane")
        .tag("consumer", consumer)
        .register(meters);
  }
}
