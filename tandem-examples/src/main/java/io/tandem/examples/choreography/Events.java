package io.tandem.examples.choreography;

import io.tandem.core.Event;
import io.tandem.core.EventHeaders;
import io.tandem.core.Tracing;

/**
 * The choreography's aggregate types (one Kafka topic each) and event types, and how a reaction is
 * built: it carries the correlation id of the event it reacts to, and that event's id as its cause.
 */
final class Events {
  static final String ORDER = "Order";
  static final String PAYMENT = "Payment";
  static final String RESERVATION = "Reservation";
  static final String SHIPMENT = "Shipment";

  static final String ORDER_CREATED = "OrderCreated";
  static final String ORDER_CONFIRMED = "OrderConfirmed";
  static final String ORDER_CANCELLED = "OrderCancelled";
  static final String PAYMENT_AUTHORIZED = "PaymentAuthorized";
  static final String PAYMENT_DECLINED = "PaymentDeclined";
  static final String PAYMENT_REFUNDED = "PaymentRefunded";
  static final String INVENTORY_RESERVED = "InventoryReserved";
  static final String OUT_OF_STOCK = "OutOfStock";
  static final String SHIPMENT_REQUESTED = "ShipmentRequested";

  /** The header naming the event a reaction answers. */
  static final String CAUSATION_ID = "causationid";

  private Events() {}

  /** The first event of a checkout, which opens its correlation id. */
  static Event first(String aggregateType, String eventType, Facts facts, String correlationId) {
    return Event.builder()
        .aggregate(aggregateType, facts.orderId(), 1)
        .eventType(eventType)
        .payload(facts.toJson())
        .headers(EventHeaders.builder().correlationId(correlationId).build())
        .build();
  }

  /** An event written in reaction to {@code cause}: same correlation id, {@code cause} as cause. */
  static Event reaction(
      Event cause, String aggregateType, long version, String eventType, Facts facts) {
    EventHeaders.Builder headers =
        EventHeaders.builder().put(CAUSATION_ID, cause.eventId().toString());
    cause.headers().correlationId().ifPresent(headers::correlationId);
    if (Tracing.get().currentContext().isEmpty()) {
      // with a span current (the consumer's), Outbox.append stores its context instead
      cause.headers().traceparent().ifPresent(headers::traceparent);
      cause.headers().tracestate().ifPresent(headers::tracestate);
    }
    return Event.builder()
        .aggregate(aggregateType, facts.orderId(), version)
        .eventType(eventType)
        .payload(facts.toJson())
        .headers(headers.build())
        .build();
  }
}
