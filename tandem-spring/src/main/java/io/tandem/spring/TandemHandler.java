package io.tandem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as an inbox handler: the starter runs one consumer per {@link #consumer()}
 * name, receiving the events of its handlers' {@link #aggregateType()}s from the configured
 * transport, and calls the method for each event of {@link #eventType()} inside the inbox's local
 * transaction. A redelivered event runs nothing (the inbox saw its id), and the handler's effect
 * commits with the inbox record or not at all.
 *
 * <p>Parameters, in any order: the {@link io.tandem.core.Event}, the inbox's {@link
 * java.sql.Connection}, and at most one other type, which receives the payload read as JSON ({@link
 * io.tandem.core.Event#payloadAs}). JDBC work through the application's {@code DataSource} ({@code
 * JdbcTemplate}, {@link TandemOutbox}, jOOQ) joins the inbox's transaction while the method runs.
 * The method must not commit; an exception rolls the whole delivery back and it is retried, then
 * dead-lettered ({@code tandem.consumer.*}).
 *
 * <pre>{@code
 * @TandemHandler(consumer = "shipping", aggregateType = "Order", eventType = "OrderPlaced")
 * void ship(OrderPlaced order) {
 *   jdbc.update("INSERT INTO shipments (order_id) VALUES (?)", order.orderId());
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TandemHandler {
  /** The inbox consumer (and consumer group) this handler belongs to. */
  String consumer();

  /** The aggregate type whose events the consumer receives (its topic, exchange or stream). */
  String aggregateType();

  /** The event type this method applies. */
  String eventType();

  /** The newest schema version this method understands. */
  int maxSchemaVersion() default 1;
}
