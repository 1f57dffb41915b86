package io.tandem.examples.outbox;

import io.tandem.core.FaultInjector;
import io.tandem.kafka.KafkaTransport;
import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import javax.sql.DataSource;

/**
 * The outbox demo's relays: healthy ones, and doomed ones that die right after the broker
 * acknowledged their first batch, before they mark it published. Counts the crashes.
 */
final class DemoRelays {
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration HEARTBEAT = Duration.ofMillis(250);

  private final KafkaTransport transport;
  private final DataSource dataSource;
  private final IntConsumer onCrash;
  private final AtomicInteger crashes = new AtomicInteger();
  private volatile long lastCrashNanos;

  /**
   * @param onCrash told the number of each doomed relay as it dies
   */
  DemoRelays(KafkaTransport transport, DataSource dataSource, IntConsumer onCrash) {
    this.transport = transport;
    this.dataSource = dataSource;
    this.onCrash = onCrash;
  }

  /**
   * Relay {@code demo-relay-n}, which dies after the broker acknowledged its first batch. Started
   * while the crash batch waits in the outbox, it holds every partition (any earlier doomed relay's
   * leases expire first), so its first read is the whole batch.
   */
  OutboxRelay doomed(int n) {
    AtomicBoolean dead = new AtomicBoolean();
    FaultInjector dieAfterAck =
        point -> {
          if (point.equals(FaultInjector.RELAY_AFTER_ACK)) {
            if (dead.compareAndSet(false, true)) {
              crashes.incrementAndGet();
              lastCrashNanos = System.nanoTime();
              onCrash.accept(n);
            }
            throw new FaultInjector.SimulatedCrash(point);
          }
        };
    return relay("demo-relay-" + n, dieAfterAck);
  }

  OutboxRelay healthy(int n) {
    return relay("demo-relay-" + n, FaultInjector.NONE);
  }

  int crashes() {
    return crashes.get();
  }

  long lastCrashNanos() {
    return lastCrashNanos;
  }

  private OutboxRelay relay(String id, FaultInjector faults) {
    return OutboxRelay.builder()
        .dataSource(dataSource)
        .transport(transport)
        .relayId(id)
        .batchSize(OutboxDemo.CRASH_BATCH)
        .leaseDuration(LEASE)
        .publishTimeout(PUBLISH_TIMEOUT)
        .heartbeatInterval(HEARTBEAT)
        .pollInterval(Duration.ofMillis(200))
        .faultInjector(faults)
        .build();
  }
}
