package io.tandem.examples.checkout;

import io.tandem.core.TandemException;

/**
 * An operation on an order was refused because a checkout saga holds it {@code PENDING} (the
 * semantic lock): try again once the saga has ended.
 */
public final class OrderLockedException extends TandemException {
  private static final long serialVersionUID = 1L;

  public OrderLockedException(String message) {
    super(message);
  }
}
