package io.tandem.examples.choreography;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The payload of every event of the choreography: the facts of the order that the next services
 * need (event-carried state), so that no service has to ask another one. Consumers read it with
 * {@link io.tandem.core.Event#payloadAs}, which ignores fields they do not know.
 *
 * @param reason why an order was cancelled, or null
 */
record Facts(
    String orderId,
    String customer,
    String product,
    int quantity,
    long amountCents,
    int shippingFailures,
    String reason) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static Facts of(String orderId, OrderRequest r) {
    return new Facts(
        orderId,
        r.customer(),
        r.product(),
        r.quantity(),
        r.amountCents(),
        r.shippingFailures(),
        null);
  }

  Facts because(String why) {
    return new Facts(orderId, customer, product, quantity, amountCents, shippingFailures, why);
  }

  String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the facts of order " + orderId, e);
    }
  }
}
