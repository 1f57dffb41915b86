package io.tandem.examples.checkout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tandem.examples.Check;
import io.tandem.examples.Money;
import io.tandem.saga.SagaQueries;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * What must hold once every checkout saga has ended, read back from the five databases (never from
 * the services' memory):
 *
 * <ul>
 *   <li>every saga ended: COMPLETED or COMPENSATED, none RUNNING, COMPENSATING or STUCK;
 *   <li>each completed saga left exactly one CONFIRMED order, one charge of the order's amount and
 *       no refund, one reservation and one shipment;
 *   <li>each compensated saga left its order (if it created one) CANCELLED, a net charge of 0, no
 *       reservation and no shipment;
 *   <li>no side effect belongs to an unknown saga; no order was charged twice;
 *   <li>money is conserved: charges − refunds = the total of the confirmed orders = the customers'
 *       running totals;
 *   <li>stock is conserved: initial − reserved = current, for every product.
 * </ul>
 *
 * @param violations what does not hold, at most {@value #MAX_LISTED} of them listed; empty when all
 *     hold
 * @param violationCount how many there are in all
 */
public record CheckoutInvariants(
    long sagas,
    long completed,
    long compensated,
    long running,
    long stuck,
    long declined,
    long outOfStock,
    long refusedByLock,
    long chargedCents,
    long refundedCents,
    long confirmedCents,
    List<String> violations,
    int violationCount,
    Set<Invariant> failed) {
  public static final int MAX_LISTED = 20;

  /** The invariants, each of which {@link #checks()} reports as held or not. */
  public enum Invariant {
    ALL_ENDED,
    COMPLETED_EFFECTS,
    COMPENSATED_EFFECTS,
    NO_DOUBLE_CHARGE,
    NO_UNKNOWN_SAGA,
    MONEY,
    STOCK
  }

  public CheckoutInvariants {
    violations = List.copyOf(violations);
    failed = Set.copyOf(failed);
  }

  /** Each invariant as a sentence with this run's figures, and whether it held. */
  public List<Check> checks() {
    return List.of(
        check(
            Invariant.ALL_ENDED,
            String.format(
                Locale.ROOT,
                "every saga ended: %d completed, %d compensated, none running, compensating or"
                    + " stuck",
                completed,
                compensated)),
        check(
            Invariant.COMPLETED_EFFECTS,
            "each completed checkout left one confirmed order, one charge of its amount and no"
                + " refund, one reservation and one shipment"),
        check(
            Invariant.COMPENSATED_EFFECTS,
            "each compensated checkout left its order cancelled (or never created), no net charge,"
                + " no reservation and no shipment"),
        check(Invariant.NO_DOUBLE_CHARGE, "no order was charged twice"),
        check(
            Invariant.NO_UNKNOWN_SAGA,
            "no order, payment, reservation or shipment belongs to a saga the orchestrator never"
                + " ran"),
        check(
            Invariant.MONEY,
            String.format(
                Locale.ROOT,
                "money conserved: charges %s - refunds %s = the confirmed orders' total %s = the"
                    + " customers' running totals",
                Money.format(chargedCents),
                Money.format(refundedCents),
                Money.format(confirmedCents))),
        check(
            Invariant.STOCK,
            "stock conserved: initial stock - reserved = current stock, for every product"));
  }

  private Check check(Invariant invariant, String statement) {
    return new Check(statement, !failed.contains(invariant));
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** True when every invariant holds. */
  public boolean ok() {
    return violationCount == 0;
  }

  private record Saga(String status, String orderId, long amount, String error) {}

  private static final class Effects {
    final List<String> orderStatuses = new ArrayList<>();
    long net;
    int charges;
    int refunds;
    int reservations;
    int shipments;
  }

  static CheckoutInvariants read(
      SagaQueries orchestrator,
      DataSource orders,
      DataSource payments,
      DataSource inventory,
      DataSource shipping)
      throws SQLException {
    Map<String, Saga> sagas = new HashMap<>();
    orchestrator.forEach(
        CheckoutSaga.TYPE,
        saga -> {
          JsonNode data;
          try {
            data = JSON.readTree(saga.data());
          } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("saga " + saga.id() + " has data that is not JSON", e);
          }
          sagas.put(
              saga.id().toString(),
              new Saga(
                  saga.status().name(),
                  data.path("orderId").asText(),
                  data.path("amountCents").asLong(),
                  saga.lastError().orElse(null)));
        });
    Violations violations = new Violations();
    Map<String, Effects> effects = new HashMap<>();
    long confirmedCents = 0;
    for (String[] r :
        Queries.rows(
            orders, "SELECT saga_id, order_id, status, amount_cents FROM checkout_order")) {
      effects(effects, sagas, violations, "order " + r[1], r[0]).orderStatuses.add(r[2]);
      if (r[2].equals(Order.CONFIRMED)) {
        confirmedCents += Long.parseLong(r[3]);
      }
    }
    long charged = 0;
    long refunded = 0;
    Map<String, Integer> chargesPerOrder = new HashMap<>();
    for (String[] r :
        Queries.rows(
            payments,
            "SELECT saga_id, order_id, kind, amount_cents FROM checkout_payment_movement")) {
      Effects e = effects(effects, sagas, violations, "payment movement of " + r[1], r[0]);
      long amount = Long.parseLong(r[3]);
      if (r[2].equals("CHARGE")) {
        e.charges++;
        e.net += amount;
        charged += amount;
        chargesPerOrder.merge(r[1], 1, Integer::sum);
      } else {
        e.refunds++;
        e.net -= amount;
        refunded += amount;
      }
    }
    chargesPerOrder.forEach(
        (order, n) -> {
          if (n > 1) {
            violations.add(
                Invariant.NO_DOUBLE_CHARGE, "order " + order + " was charged " + n + " times");
          }
        });
    for (String[] r : Queries.rows(inventory, "SELECT saga_id FROM checkout_reservation")) {
      effects(effects, sagas, violations, "reservation", r[0]).reservations++;
    }
    for (String[] r : Queries.rows(shipping, "SELECT saga_id FROM checkout_shipment")) {
      effects(effects, sagas, violations, "shipment", r[0]).shipments++;
    }

    long completed = 0;
    long compensated = 0;
    long running = 0;
    long stuck = 0;
    long declined = 0;
    long outOfStock = 0;
    long refusedByLock = 0;
    for (Map.Entry<String, Saga> entry : sagas.entrySet()) {
      String id = entry.getKey();
      Saga saga = entry.getValue();
      Effects e = effects.getOrDefault(id, new Effects());
      switch (saga.status()) {
        case "COMPLETED" -> {
          completed++;
          expect(
              violations,
              Invariant.COMPLETED_EFFECTS,
              e.orderStatuses.equals(List.of(Order.CONFIRMED)),
              id,
              "completed with orders " + e.orderStatuses + " instead of one CONFIRMED");
          expect(
              violations,
              Invariant.COMPLETED_EFFECTS,
              e.charges == 1 && e.refunds == 0 && e.net == saga.amount(),
              id,
              "completed with "
                  + e.charges
                  + " charges, "
                  + e.refunds
                  + " refunds, net "
                  + e.net
                  + " for an order of "
                  + saga.amount());
          expect(
              violations,
              Invariant.COMPLETED_EFFECTS,
              e.reservations == 1,
              id,
              "completed with reservations " + e.reservations);
          expect(
              violations,
              Invariant.COMPLETED_EFFECTS,
              e.shipments == 1,
              id,
              "completed with shipments " + e.shipments);
        }
        case "COMPENSATED" -> {
          compensated++;
          String error = saga.error() == null ? "" : saga.error();
          if (error.contains("card declined")) {
            declined++;
          } else if (error.contains("out of stock")) {
            outOfStock++;
          } else if (error.contains("semantic lock") || error.contains("checked out before")) {
            refusedByLock++;
          }
          expect(
              violations,
              Invariant.COMPENSATED_EFFECTS,
              e.orderStatuses.isEmpty() || e.orderStatuses.equals(List.of(Order.CANCELLED)),
              id,
              "compensated with orders " + e.orderStatuses + " instead of none or one CANCELLED");
          expect(
              violations,
              Invariant.COMPENSATED_EFFECTS,
              e.net == 0,
              id,
              "compensated with a net charge of " + e.net);
          expect(
              violations,
              Invariant.COMPENSATED_EFFECTS,
              e.reservations == 0,
              id,
              "compensated with reservations " + e.reservations);
          expect(
              violations,
              Invariant.COMPENSATED_EFFECTS,
              e.shipments == 0,
              id,
              "compensated with shipments " + e.shipments);
        }
        case "STUCK" -> stuck++;
        default -> running++;
      }
    }
    if (running > 0 || stuck > 0) {
      violations.addFirst(
          Invariant.ALL_ENDED,
          running + " sagas still running or compensating, " + stuck + " stuck: not all ended");
    }
    long net = charged - refunded;
    if (net != confirmedCents) {
      violations.add(
          Invariant.MONEY,
          "money: charges "
              + charged
              + " - refunds "
              + refunded
              + " = "
              + net
              + ", but the confirmed orders total "
              + confirmedCents);
    }
    long accounts =
        Queries.single(payments, "SELECT COALESCE(SUM(charged_cents), 0) FROM checkout_account");
    if (accounts != net) {
      violations.add(
          Invariant.MONEY,
          "money: the customers' running totals sum to " + accounts + ", not " + net);
    }
    for (String[] r :
        Queries.rows(
            inventory,
            "SELECT p.sku, p.initial_stock, p.stock, COALESCE(SUM(r.quantity), 0)"
                + " FROM checkout_product p LEFT JOIN checkout_reservation r ON r.sku = p.sku"
                + " GROUP BY p.sku, p.initial_stock, p.stock")) {
      long initial = Long.parseLong(r[1]);
      long stock = Long.parseLong(r[2]);
      long reserved = Long.parseLong(r[3]);
      if (initial - reserved != stock) {
        violations.add(
            Invariant.STOCK,
            "stock of "
                + r[0]
                + ": initial "
                + initial
                + " - reserved "
                + reserved
                + " != current "
                + stock);
      }
    }
    List<String> all = violations.messages;
    int count = all.size();
    return new CheckoutInvariants(
        sagas.size(),
        completed,
        compensated,
        running,
        stuck,
        declined,
        outOfStock,
        refusedByLock,
        charged,
        refunded,
        confirmedCents,
        all.subList(0, Math.min(count, MAX_LISTED)),
        count,
        violations.failed);
  }

  private static Effects effects(
      Map<String, Effects> effects,
      Map<String, Saga> sagas,
      Violations violations,
      String what,
      String sagaId) {
    if (!sagas.containsKey(sagaId)) {
      violations.add(
          Invariant.NO_UNKNOWN_SAGA,
          what + " belongs to saga " + sagaId + ", which the orchestrator never ran");
    }
    return effects.computeIfAbsent(sagaId, id -> new Effects());
  }

  private static void expect(
      Violations violations, Invariant invariant, boolean holds, String sagaId, String what) {
    if (!holds) {
      violations.add(invariant, "saga " + sagaId + " " + what);
    }
  }

  /** What does not hold, in the order found, and which invariants it breaks. */
  private static final class Violations {
    final List<String> messages = new ArrayList<>();
    final Set<Invariant> failed = EnumSet.noneOf(Invariant.class);

    void add(Invariant invariant, String message) {
      messages.add(message);
      failed.add(invariant);
    }

    void addFirst(Invariant invariant, String message) {
      messages.add(0, message);
      failed.add(invariant);
    }
  }
}
