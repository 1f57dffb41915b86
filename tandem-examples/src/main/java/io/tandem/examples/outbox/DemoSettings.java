package io.tandem.examples.outbox;

import java.time.Duration;

/**
 * Settings of the outbox demo. {@code jdbcUrl} and {@code kafkaBootstrap} are null for the embedded
 * default (PostgreSQL and Kafka started from Maven artifacts).
 *
 * @param orders orders to confirm (default 1000)
 * @param writers concurrent writer threads of the order service (default 4)
 * @param relays healthy relay instances running side by side (default 2)
 * @param relayCrashes relays killed after the broker's ack and before marking (default 1)
 * @param jdbcUrl an external PostgreSQL server (the demo creates and drops its own databases)
 * @param kafkaBootstrap an external Kafka cluster (the demo uses a new topic per run)
 * @param timeout how long to wait for every event to reach billing
 */
public record DemoSettings(
    int orders,
    int writers,
    int relays,
    int relayCrashes,
    String jdbcUrl,
    String kafkaBootstrap,
    Duration timeout) {

  public static final DemoSettings DEFAULTS =
      new DemoSettings(1000, 4, 2, 1, null, null, Duration.ofMinutes(3));

  public DemoSettings {
    check(orders >= 1 && orders <= 10_000_000, "orders must be between 1 and 10000000", orders);
    check(writers >= 1 && writers <= 64, "writers must be between 1 and 64", writers);
    check(relays >= 1 && relays <= 16, "relays must be between 1 and 16", relays);
    check(
        relayCrashes >= 0 && relayCrashes <= 10,
        "relay crashes must be between 0 and 10",
        relayCrashes);
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be a positive duration, was " + timeout);
    }
  }

  private static void check(boolean ok, String message, int value) {
    if (!ok) {
      throw new IllegalArgumentException(message + ", was " + value);
    }
  }
}
