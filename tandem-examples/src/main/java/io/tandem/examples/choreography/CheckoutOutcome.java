package io.tandem.examples.choreography;

/** Where one choreographed checkout stands, as the order service records it. */
public enum CheckoutOutcome {
  /** Still moving: the order is pending. */
  PENDING,
  /** Paid, reserved and handed to the carrier: the order is confirmed. */
  CONFIRMED,
  /** The payment was declined: the order is cancelled. */
  DECLINED,
  /** Paid, then out of stock: the payment was refunded and the order cancelled. */
  OUT_OF_STOCK;

  /** Whether the checkout has ended. */
  public boolean finished() {
    return this != PENDING;
  }
}
