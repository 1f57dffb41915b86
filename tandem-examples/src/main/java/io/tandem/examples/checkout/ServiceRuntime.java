package io.tandem.examples.checkout;

import io.micrometer.core.instrument.MeterRegistry;
import io.tandem.inbox.ConsumerRunner;
import io.tandem.inbox.InboxProcessor;
import io.tandem.kafka.KafkaMessageSource;
import io.tandem.kafka.KafkaTransport;
import io.tandem.outbox.OutboxRelay;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * The plumbing of one service: the relay that publishes its outbox to Kafka and the consumer runner
 * that applies its topic's messages through its inbox. Nothing else connects a service to the
 * others.
 */
final class ServiceRuntime implements AutoCloseable {
  /** Lease of the relays' partitions: a relay that dies leaves them to another within this. */
  static final Duration RELAY_LEASE = Duration.ofSeconds(3);

  private final String service;
  private final KafkaTransport transport;
  private final OutboxRelay relay;
  private final KafkaMessageSource source;
  private final ConsumerRunner runner;

  private ServiceRuntime(
      String service,
      KafkaTransport transport,
      OutboxRelay relay,
      KafkaMessageSource source,
      ConsumerRunner runner) {
    this.service = service;
    this.transport = transport;
    this.relay = relay;
    this.source = source;
    this.runner = runner;
  }

  /**
   * Starts the relay of {@code dataSource} and a runner of {@code processor} on the topic of {@code
   * inboundType}.
   *
   * @param instance distinguishes instances of the same service (relay id, client ids)
   * @param meters where the relay and the runner count (the service's registry)
   */
  static ServiceRuntime start(
      String service,
      String instance,
      DataSource dataSource,
      InboxProcessor processor,
      String inboundType,
      KafkaTopology topology,
      Duration pollInterval,
      boolean wakeRelayOnApply,
      int concurrency,
      MeterRegistry meters) {
    KafkaTransport transport =
        KafkaTransport.builder()
            .bootstrapServers(topology.bootstrapServers())
            .clientProperties(topology.clientProperties())
            .source("/tandem/checkout/" + service)
            .topicRouter(topology.router())
            .build();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .transport(transport)
            .relayId(service + "-relay-" + instance)
            .batchSize(200)
            .leaseDuration(RELAY_LEASE)
            .heartbeatInterval(Duration.ofMillis(500))
            .publishTimeout(Duration.ofSeconds(2))
            .pollInterval(pollInterval)
            .meterRegistry(meters)
            .build();
    KafkaMessageSource source =
        KafkaMessageSource.builder()
            .bootstrapServers(topology.bootstrapServers())
            .clientProperties(topology.clientProperties())
            .groupId(topology.group(processor.consumer()))
            .topics(List.of(topology.topic(inboundType)))
            .pollTimeout(Duration.ofMillis(100))
            .rebalanceTimeout(Duration.ofSeconds(5))
            .closeTimeout(Duration.ofSeconds(5))
            // A member that dies is replaced within seconds, not the default 45 s.
            .consumerProperty("session.timeout.ms", "6000")
            .consumerProperty("heartbeat.interval.ms", "1000")
            .build();
    ConsumerRunner runner =
        ConsumerRunner.builder()
            .source(source)
            .processor(processor)
            .concurrency(concurrency)
            .closeTimeout(Duration.ofSeconds(5))
            .meterRegistry(meters)
            // The handler appended its reply to this service's outbox: without notifications
            // (MariaDB) publish it now, not at the next poll. A listening relay is woken by the
            // database and batches under load; waking it here too would only split its batches.
            .afterApplied(wakeRelayOnApply ? relay::wakeUp : () -> {})
            .build();
    try {
      relay.start();
      runner.start();
    } catch (RuntimeException e) {
      runner.close();
      relay.close();
      transport.close();
      throw e;
    }
    return new ServiceRuntime(service, transport, relay, source, runner);
  }

  /** The service's name, as given to {@link #start}. */
  String service() {
    return service;
  }

  boolean isRunning() {
    return relay.isRunning() && runner.isRunning();
  }

  /** Whether the consumer was given its partitions and the relay holds its share. */
  boolean isReady() {
    return !source.assignment().isEmpty() && !relay.status().ownedPartitions().isEmpty();
  }

  InboxProcessor processor() {
    return runner.processor();
  }

  @Override
  public void close() {
    try {
      runner.close();
    } finally {
      try {
        relay.close();
      } finally {
        transport.close();
      }
    }
  }
}
