package io.tandem.examples.checkout;

import java.util.UUID;

/**
 * An order as the order service stores it.
 *
 * @param sagaId the checkout saga that created it (and holds it while {@code PENDING})
 * @param status {@code PENDING}, {@code CONFIRMED} or {@code CANCELLED}
 * @param version incremented by every change; updates name the version they read
 */
public record Order(
    String orderId,
    UUID sagaId,
    String customer,
    String sku,
    int quantity,
    long amountCents,
    String address,
    String status,
    long version) {
  public static final String PENDING = "PENDING";
  public static final String CONFIRMED = "CONFIRMED";
  public static final String CANCELLED = "CANCELLED";
}
