package io.tandem.spring;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.core.spi.Transport;
import io.tandem.outbox.OutboxRelay;
import java.util.Objects;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.context.SmartLifecycle;

/**
 * Starts an {@link OutboxRelay} when the application context starts and closes it gracefully when
 * the context stops (the batch in flight is published and recorded, the partitions are given back).
 *
 * <p>A relay cannot be restarted, so this lifecycle builds a new one from {@code factory} on every
 * start. Its phase ({@value #DEFAULT_PHASE}) is below the web server's: on shutdown the web server
 * stops taking requests first, then the relay stops, then the {@code DataSource} closes.
 */
public final class RelayLifecycle implements SmartLifecycle {
  /** Lower than Boot's web server phases, so the relay stops after the last request. */
  public static final int DEFAULT_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final Supplier<OutboxRelay> factory;
  private final int phase;
  private volatile OutboxRelay relay;

  public RelayLifecycle(Supplier<OutboxRelay> factory) {
    this(factory, DEFAULT_PHASE);
  }

  public RelayLifecycle(Supplier<OutboxRelay> factory, int phase) {
    this.factory = Objects.requireNonNull(factory, "factory");
    this.phase = phase;
  }

  /**
   * A lifecycle whose relays are built from {@code settings} on {@code dataSource} and {@code
   * transport}; fails at once, naming the fix, when there is no transport or a setting is invalid.
   *
   * @param meters where the relay's metrics go, or null for none
   */
  public static RelayLifecycle of(
      DataSource dataSource,
      TandemProperties.Relay settings,
      Transport transport,
      MeterRegistry meters) {
    if (transport == null) {
      throw new IllegalStateException(
          "tandem.relay.enabled is true but there is no transport to publish with: add"
              + " io.tandem:tandem-kafka and set tandem.kafka.bootstrap-servers, declare a bean of"
              + " type io.tandem.core.spi.Transport, or set tandem.relay.enabled=false (another"
              + " process relays)");
    }
    Supplier<OutboxRelay> factory =
        () -> {
          OutboxRelay.Builder b = settings.toBuilder().dataSource(dataSource).transport(transport);
          if (meters != null) {
            b.meterRegistry(meters);
          }
          return b.build();
        };
    settings.toBuilder().checkSettings();
    return new RelayLifecycle(factory);
  }

  @Override
  public synchronized void start() {
    if (relay == null) {
      OutboxRelay r = factory.get();
      r.start();
      relay = r;
    }
  }

  @Override
  public synchronized void stop() {
    OutboxRelay r = relay;
    relay = null;
    if (r != null) {
      r.close();
    }
  }

  @Override
  public boolean isRunning() {
    return relay != null;
  }

  @Override
  public int getPhase() {
    return phase;
  }

  /** The running relay, or null while stopped. */
  public OutboxRelay relay() {
    return relay;
  }
}
