package io.tandem.examples.choreography;

/**
 * An order the order service accepted: its {@code OrderCreated} event committed with it.
 *
 * @param orderId the order's id, also the aggregate id of every event of its checkout
 * @param correlationId the {@code correlationid} header of every event of its checkout; give it to
 *     {@link ChoreographedCheckout#trail(String)}
 * @param request what was ordered
 */
public record PlacedOrder(String orderId, String correlationId, OrderRequest request) {}
