package io.tandem.sample;

import io.tandem.core.Event;
import io.tandem.spring.TandemHandler;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The shipping service's consumer (in the same process for the sample's sake): each OrderPlaced
 * creates one shipment. The starter runs it as inbox consumer {@code shipping} on the Kafka topic
 * of aggregate type {@code Order}; the insert joins the inbox's transaction, so a redelivered event
 * ships nothing twice.
 */
@Component
public class ShippingConsumer {
  private final JdbcTemplate jdbc;

  public ShippingConsumer(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @TandemHandler(consumer = "shipping", aggregateType = "Order", eventType = "OrderPlaced")
  public void ship(Event event) {
    jdbc.update(
        "INSERT INTO shipments (shipment_id, order_id) VALUES (?, ?)",
        UUID.randomUUID().toString(),
        event.aggregateId());
  }
}
