package io.tandem.examples.checkout;

import io.tandem.examples.checkout.ShippingService.CarrierUnavailableException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A carrier the test scripts per order: down until told otherwise, or failing N calls. */
final class ScriptedCarrier implements ShippingService.Carrier {
  private final Set<String> down = ConcurrentHashMap.newKeySet();
  private final Map<String, AtomicInteger> failuresLeft = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  void down(String orderId) {
    down.add(orderId);
  }

  void up(String orderId) {
    down.remove(orderId);
  }

  void failFirst(String orderId, int failures) {
    failuresLeft.put(orderId, new AtomicInteger(failures));
  }

  int calls(String orderId) {
    AtomicInteger n = calls.get(orderId);
    return n == null ? 0 : n.get();
  }

  @Override
  public void book(String orderId, String address) {
    calls.computeIfAbsent(orderId, id -> new AtomicInteger()).incrementAndGet();
    if (down.contains(orderId)) {
      throw new CarrierUnavailableException("carrier down for " + orderId);
    }
    AtomicInteger left = failuresLeft.get(orderId);
    if (left != null && left.getAndDecrement() > 0) {
      throw new CarrierUnavailableException("carrier busy for " + orderId);
    }
  }
}
