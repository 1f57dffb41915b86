package io.tandem.examples.checkout;

/**
 * The data of one checkout saga, sent with every command of the saga. Fields a participant adds in
 * its success reply ({@code paymentId}, {@code reservationId}, {@code shipmentId}) are merged into
 * the stored saga data; participants read it back with this type, which ignores them.
 *
 * <p>The failure mix of the demo follows from the data, deterministically: a card number ending in
 * {@value PaymentService#DECLINED_CARD_SUFFIX} is declined; a product whose stock is too low fails
 * the reservation.
 *
 * @param orderId the order the customer checks out; one checkout per order
 * @param customer who pays
 * @param sku the product
 * @param quantity how many, at least 1
 * @param amountCents the order total in cents, at least 1
 * @param card the card number
 * @param address where to ship
 */
public record Checkout(
    String orderId,
    String customer,
    String sku,
    int quantity,
    long amountCents,
    String card,
    String address) {

  public Checkout {
    require(orderId, "orderId");
    require(customer, "customer");
    require(sku, "sku");
    require(card, "card");
    require(address, "address");
    if (quantity < 1) {
      throw new IllegalArgumentException("quantity must be at least 1, was " + quantity);
    }
    if (amountCents < 1) {
      throw new IllegalArgumentException("amountCents must be at least 1, was " + amountCents);
    }
  }

  private static void require(String value, String name) {
    if (value == null || value.isBlank() || value.length() > 100) {
      throw new IllegalArgumentException(
          name + " must be 1 to 100 characters, was '" + value + "'");
    }
  }
}
