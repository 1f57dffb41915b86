package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.MariaDbServer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/** Builds and starts a {@link CheckoutSystem}; postgres and kafka are required. */
public final class CheckoutSystemBuilder {
  DatabaseServer postgres;
  DatabaseServer payment;
  KafkaBroker kafka;
  ShippingService.Carrier carrier = ShippingService.Carrier.flaky(0);
  Duration stepTimeout = Duration.ofSeconds(10);
  Duration pollInterval = Duration.ofMillis(200);
  boolean orchestratorInProcess = true;
  int concurrency = 4;
  String topicPrefix;
  Function<String, MeterRegistry> serviceMeters = service -> new SimpleMeterRegistry();

  CheckoutSystemBuilder() {}

  /**
   * Where each service of this JVM counts (its relay, consumer runner, inbox and saga meters), by
   * the service's name as {@link CheckoutSystem#databases()} names it; called once per service that
   * runs here. Default: a registry of its own per service that nobody reads.
   */
  public CheckoutSystemBuilder serviceMeters(Function<String, MeterRegistry> serviceMeters) {
    this.serviceMeters = java.util.Objects.requireNonNull(serviceMeters, "serviceMeters");
    return this;
  }

  /** The server of the order, inventory, shipping and orchestrator databases. Required. */
  public CheckoutSystemBuilder postgres(DatabaseServer postgres) {
    this.postgres = postgres;
    return this;
  }

  /** The server of the payment database (MariaDB, say); default the PostgreSQL one. */
  public CheckoutSystemBuilder paymentDatabase(DatabaseServer payment) {
    this.payment = payment;
    return this;
  }

  /** The Kafka cluster; the system creates its own topics there. Required. */
  public CheckoutSystemBuilder kafka(KafkaBroker kafka) {
    this.kafka = kafka;
    return this;
  }

  /** The shipping service's carrier; default one that never fails. */
  public CheckoutSystemBuilder carrier(ShippingService.Carrier carrier) {
    this.carrier = carrier;
    return this;
  }

  /** How long a saga step waits for its reply before its command is sent again; default 10 s. */
  public CheckoutSystemBuilder stepTimeout(Duration stepTimeout) {
    this.stepTimeout = stepTimeout;
    return this;
  }

  /**
   * How often the relays look for new outbox rows besides PostgreSQL's notifications; default 200
   * ms (a quarter of it on MariaDB, which has no notifications).
   */
  public CheckoutSystemBuilder pollInterval(Duration pollInterval) {
    this.pollInterval = pollInterval;
    return this;
  }

  /**
   * Whether an orchestrator instance runs in this JVM (default); with false, only the engine to
   * start and read sagas is here, and {@link OrchestratorMain} processes must run them.
   */
  public CheckoutSystemBuilder orchestratorInProcess(boolean orchestratorInProcess) {
    this.orchestratorInProcess = orchestratorInProcess;
    return this;
  }

  /** Worker lanes of each participant's consumer; default 4. */
  public CheckoutSystemBuilder concurrency(int concurrency) {
    this.concurrency = concurrency;
    return this;
  }

  /** The topic prefix; default {@code tandem.checkout-<random>.}. */
  public CheckoutSystemBuilder topicPrefix(String topicPrefix) {
    this.topicPrefix = topicPrefix;
    return this;
  }

  /**
   * Creates the databases and topics and starts every service.
   *
   * @throws IllegalArgumentException naming a missing or invalid setting
   */
  public CheckoutSystem start() throws SQLException {
    if (postgres == null || kafka == null) {
      throw new IllegalArgumentException("postgres and kafka are required");
    }
    if (!(postgres instanceof io.tandem.testkit.PostgresServer)) {
      throw new IllegalArgumentException(
          "postgres must be a PostgreSQL server (the services use its SQL), was " + postgres);
    }
    if (carrier == null) {
      throw new IllegalArgumentException("carrier must not be null");
    }
    if (stepTimeout == null || stepTimeout.isNegative() || stepTimeout.isZero()) {
      throw new IllegalArgumentException("stepTimeout must be positive, was " + stepTimeout);
    }
    if (pollInterval == null || pollInterval.toMillis() < 4) {
      throw new IllegalArgumentException("pollInterval must be at least 4 ms, was " + pollInterval);
    }
    if (concurrency < 1 || concurrency > 64) {
      throw new IllegalArgumentException(
          "concurrency must be between 1 and 64, was " + concurrency);
    }
    if (payment == null) {
      payment = postgres;
    }
    String prefix =
        topicPrefix != null
            ? topicPrefix
            : "tandem.checkout-"
                + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36)
                + ".";
    CheckoutSystem system =
        new CheckoutSystem(
            new KafkaTopology(kafka.bootstrapServers(), prefix, kafka.clientProperties()),
            payment instanceof MariaDbServer);
    try {
      system.start(this);
    } catch (SQLException | RuntimeException e) {
      try {
        system.close();
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return system;
  }
}
