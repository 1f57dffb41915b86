package io.tandem.examples.choreography;

/**
 * What a customer orders. The choreography's failures follow from these values alone, so a demo
 * chooses its failure mix by choosing its orders:
 *
 * <ul>
 *   <li>the payment service declines an amount above {@link #PAYMENT_LIMIT_CENTS};
 *   <li>the inventory service has no stock of {@link #SOLD_OUT_PRODUCT} (nor of any product it does
 *       not stock, nor more than it holds), and then reports {@code OutOfStock};
 *   <li>the shipping service's carrier fails {@code shippingFailures} times, transiently, before it
 *       accepts the shipment.
 * </ul>
 *
 * @param customer who orders, 1 to 100 characters
 * @param product one of {@link #PRODUCTS} or {@link #SOLD_OUT_PRODUCT}, or any other name (which
 *     the inventory does not stock)
 * @param quantity 1 to 1000
 * @param amountCents the total, at least 1
 * @param shippingFailures transient carrier failures before success, 0 to {@link
 *     #MAX_SHIPPING_FAILURES}
 */
public record OrderRequest(
    String customer, String product, int quantity, long amountCents, int shippingFailures) {

  /** Amounts above this (1,000.00) are declined. */
  public static final long PAYMENT_LIMIT_CENTS = 100_000;

  /** A product the inventory lists with no stock. */
  public static final String SOLD_OUT_PRODUCT = "unobtainium";

  /** Products the inventory starts with {@link #INITIAL_STOCK} units of. */
  public static final java.util.List<String> PRODUCTS = java.util.List.of("widget", "gadget");

  /** Units of each of {@link #PRODUCTS} at start. */
  public static final long INITIAL_STOCK = 1_000_000;

  /**
   * The most transient failures an order may ask of the carrier; the shipping consumer's retry
   * policy allows more attempts than this.
   */
  public static final int MAX_SHIPPING_FAILURES = 5;

  public OrderRequest {
    if (customer == null || customer.isBlank() || customer.length() > 100) {
      throw new IllegalArgumentException(
          "customer must be 1 to 100 characters, was '" + customer + "'");
    }
    if (product == null || product.isBlank() || product.length() > 100) {
      throw new IllegalArgumentException(
          "product must be 1 to 100 characters, was '" + product + "'");
    }
    if (quantity < 1 || quantity > 1000) {
      throw new IllegalArgumentException("quantity must be 1 to 1000, was " + quantity);
    }
    if (amountCents < 1) {
      throw new IllegalArgumentException("amountCents must be at least 1, was " + amountCents);
    }
    if (shippingFailures < 0 || shippingFailures > MAX_SHIPPING_FAILURES) {
      throw new IllegalArgumentException(
          "shippingFailures must be 0 to " + MAX_SHIPPING_FAILURES + ", was " + shippingFailures);
    }
  }

  /**
   * How this order ends by the rules, assuming the stock of {@link #PRODUCTS} is not exhausted
   * (orders of this class's demo mixes never come close).
   */
  public CheckoutOutcome expectedOutcome() {
    if (amountCents > PAYMENT_LIMIT_CENTS) {
      return CheckoutOutcome.DECLINED;
    }
    if (!PRODUCTS.contains(product)) {
      return CheckoutOutcome.OUT_OF_STOCK;
    }
    return CheckoutOutcome.CONFIRMED;
  }
}
