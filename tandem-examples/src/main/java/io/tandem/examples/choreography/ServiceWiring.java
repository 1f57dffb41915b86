package io.tandem.examples.choreography;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tandem.inbox.InboxProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * How each service of the choreography is wired to the others: the event types it listens to, its
 * topics and consumer group under a prefix, its inbox processor. Shared by {@link
 * ChoreographedCheckout} and {@link ChoreographyServiceMain}.
 */
final class ServiceWiring {
  private ServiceWiring() {}

  /** The event types (topics) each service listens to. */
  static final Map<String, List<String>> INBOUND =
      Map.of(
          OrderService.NAME, List.of(Events.PAYMENT, Events.SHIPMENT),
          PaymentService.NAME, List.of(Events.ORDER, Events.RESERVATION),
          InventoryService.NAME, List.of(Events.PAYMENT),
          ShippingService.NAME, List.of(Events.RESERVATION));

  /**
   * Starts {@code service}'s relay and consumer (this JVM's, or {@link ChoreographyServiceMain}'s):
   * its topics under {@code prefix}, its consumer group {@code prefix + service}.
   *
   * @param onMariaDb its database is MariaDB, which has no LISTEN/NOTIFY: the relay then polls
   *     twice as often, having nothing else to find new rows by
   */
  static ServiceNode startNode(
      String service,
      DataSource ds,
      InboxProcessor processor,
      boolean onMariaDb,
      Duration pollInterval,
      String bootstrapServers,
      Map<String, String> kafkaClient,
      String prefix,
      int concurrency) {
    return ServiceNode.start(
        service,
        ds,
        processor,
        topics(prefix, service),
        bootstrapServers,
        kafkaClient,
        prefix,
        prefix + service,
        onMariaDb ? pollInterval.dividedBy(2) : pollInterval,
        concurrency);
  }

  /** The topics {@code service} listens to, under {@code prefix}. */
  static List<String> topics(String prefix, String service) {
    List<String> topics = new ArrayList<>();
    for (String type : INBOUND.get(service)) {
      topics.add(prefix + type.toLowerCase(Locale.ROOT));
    }
    return topics;
  }

  /** A new inbox processor of {@code service} on its database {@code ds}. */
  static InboxProcessor processorOf(String service, DataSource ds) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    return switch (service) {
      case OrderService.NAME -> new OrderService(ds).processor(meters);
      case PaymentService.NAME -> new PaymentService(ds).processor(meters);
      case InventoryService.NAME -> new InventoryService(ds).processor(meters);
      case ShippingService.NAME -> new ShippingService(ds).processor(meters);
      default ->
          throw new IllegalArgumentException(
              "service must be order, payment, inventory or shipping, was '" + service + "'");
    };
  }
}
