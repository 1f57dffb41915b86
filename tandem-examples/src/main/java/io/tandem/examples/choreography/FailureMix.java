package io.tandem.examples.choreography;

/**
 * The share of orders, in percent, that {@link ChoreographedCheckout#run} makes fail in each way;
 * the rest succeed at once. Which orders fail is deterministic: order {@code n} takes its place
 * {@code (n * 37) % 100} in each block of 100, so every 100 consecutive orders hold the exact
 * percentages and the failures are spread through the run.
 *
 * <pre>{@code
 * FailureMix mix = new FailureMix(10, 10, 20); // 10 % declined, 10 % out of stock, 20 % retried
 * }</pre>
 *
 * @param declinedPercent orders above the payment limit
 * @param outOfStockPercent orders of the sold-out product
 * @param shippingRetryPercent orders whose carrier fails once or twice before it accepts
 */
public record FailureMix(int declinedPercent, int outOfStockPercent, int shippingRetryPercent) {

  /** Every order succeeds at once. */
  public static final FailureMix NONE = new FailureMix(0, 0, 0);

  /** 10 % declined, 10 % out of stock, 10 % retried by shipping. */
  public static final FailureMix DEFAULT = new FailureMix(10, 10, 10);

  public FailureMix {
    check("declinedPercent", declinedPercent);
    check("outOfStockPercent", outOfStockPercent);
    check("shippingRetryPercent", shippingRetryPercent);
    int sum = declinedPercent + outOfStockPercent + shippingRetryPercent;
    if (sum > 100) {
      throw new IllegalArgumentException(
          "the percentages must add up to at most 100, were " + sum + " (" + this + ")");
    }
  }

  /** The request of order number {@code n} (from 0) of a run. */
  public OrderRequest request(int n) {
    int place = (int) ((n * 37L) % 100);
    String customer = "customer-" + (n % 97);
    String product = OrderRequest.PRODUCTS.get(n % OrderRequest.PRODUCTS.size());
    int quantity = 1 + n % 3;
    long amount = 1_000 + (n % 50) * 100L;
    if (place < declinedPercent) {
      return new OrderRequest(
          customer, product, quantity, OrderRequest.PAYMENT_LIMIT_CENTS + amount, 0);
    }
    place -= declinedPercent;
    if (place < outOfStockPercent) {
      return new OrderRequest(customer, OrderRequest.SOLD_OUT_PRODUCT, quantity, amount, 0);
    }
    place -= outOfStockPercent;
    if (place < shippingRetryPercent) {
      return new OrderRequest(customer, product, quantity, amount, 1 + n % 2);
    }
    return new OrderRequest(customer, product, quantity, amount, 0);
  }

  private static void check(String name, int value) {
    if (value < 0 || value > 100) {
      throw new IllegalArgumentException(name + " must be 0 to 100, was " + value);
    }
  }
}
