package io.tandem.examples.checkout;

import static io.tandem.examples.checkout.CheckoutDemo.PRODUCTS;
import static io.tandem.examples.checkout.CheckoutDemo.SOLD_OUT;
import static io.tandem.examples.checkout.CheckoutDemo.WARM_UP;

import io.tandem.examples.checkout.CheckoutDemo.Planned;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The demo's checkouts and how each should end, from the data alone: a declined card, the sold-out
 * product, or a checkout that completes.
 */
final class CheckoutPlan {
  private static final String GOOD_CARD = "4242424242424242";
  private static final String DECLINED_CARD = "4000000000000002";

  private CheckoutPlan() {}

  /** The checkouts of a run, from the seed: the same settings give the same mix. */
  static List<Planned> of(CheckoutDemoSettings s) {
    Random random = new Random(s.seed());
    List<Planned> plan = new ArrayList<>(s.checkouts());
    for (int i = 1; i <= s.checkouts(); i++) {
      double r = random.nextDouble();
      boolean declined = r < s.declineRate();
      boolean outOfStock = !declined && r < s.declineRate() + s.outOfStockRate();
      int product = 1 + random.nextInt(PRODUCTS);
      int quantity = 1 + random.nextInt(3);
      String sku = outOfStock ? SOLD_OUT : "sku-" + product;
      plan.add(
          new Planned(
              new Checkout(
                  "order-" + i,
                  "customer-" + random.nextInt(50),
                  sku,
                  quantity,
                  quantity * (500L + 250L * product),
                  declined ? DECLINED_CARD : GOOD_CARD,
                  i + " Main Street"),
              declined,
              outOfStock));
    }
    return plan;
  }

  /**
   * The warm-up's checkouts: {@value CheckoutDemo#WARM_UP} of them, one in eight declined and one
   * in eight sold out, so that every path of the saga (and of each service) runs before the timed
   * ones.
   */
  static List<Planned> warmUp() {
    List<Planned> plan = new ArrayList<>(WARM_UP);
    for (int i = 1; i <= WARM_UP; i++) {
      boolean declined = i % 8 == 3;
      boolean outOfStock = i % 8 == 6;
      int product = 1 + i % PRODUCTS;
      plan.add(
          new Planned(
              new Checkout(
                  "warm-up-" + i,
                  "customer-" + i % 50,
                  outOfStock ? SOLD_OUT : "sku-" + product,
                  1,
                  500L + 250L * product,
                  declined ? DECLINED_CARD : GOOD_CARD,
                  i + " Warm-up Street"),
              declined,
              outOfStock));
    }
    return plan;
  }
}
