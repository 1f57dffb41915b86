package io.tandem.examples.checkout;

import io.tandem.examples.Check;
import io.tandem.examples.checkout.CheckoutDemo.Planned;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Reads a finished run back from the services' databases into a {@link CheckoutReport}: the
 * invariants, whether every checkout ended as its data said, and the timed sagas' latency.
 */
final class CheckoutReadback {
  private CheckoutReadback() {}

  static CheckoutReport read(
      CheckoutSystem system,
      List<Planned> plan,
      Set<UUID> measured,
      int warmUpCheckouts,
      long start,
      CheckoutReport.Timings timings,
      int orchestratorKills)
      throws Exception {
    CheckoutInvariants invariants = system.invariants();
    long plannedDeclined = plan.stream().filter(Planned::declined).count();
    long plannedOutOfStock = plan.stream().filter(Planned::outOfStock).count();
    long plannedCompleted = plan.size() - plannedDeclined - plannedOutOfStock;
    List<String> violations = new ArrayList<>(invariants.violations());
    boolean asPlanned =
        invariants.sagas() == plan.size()
            && invariants.declined() == plannedDeclined
            && invariants.outOfStock() == plannedOutOfStock
            && invariants.completed() == plannedCompleted;
    if (!asPlanned) {
      violations.add(
          String.format(
              Locale.ROOT,
              "outcomes differ from the plan: %d sagas, %d completed, %d declined, %d out of"
                  + " stock; planned %d, %d, %d, %d",
              invariants.sagas(),
              invariants.completed(),
              invariants.declined(),
              invariants.outOfStock(),
              plan.size(),
              plannedCompleted,
              plannedDeclined,
              plannedOutOfStock));
    }
    List<Check> checks = new ArrayList<>(invariants.checks());
    checks.add(
        new Check(
            String.format(
                Locale.ROOT,
                "every checkout ended as its data said (the warm-up's included): %d of %d planned"
                    + " sagas ran; %d declined cards cancelled, %d sold-out orders refunded then"
                    + " cancelled, %d completed",
                invariants.sagas(),
                plan.size(),
                plannedDeclined,
                plannedOutOfStock,
                plannedCompleted),
            asPlanned));
    List<SagaTime> times =
        system.sagaTimes().stream().filter(t -> measured.contains(t.sagaId())).toList();
    List<Double> millis =
        times.stream().map(SagaTime::millis).sorted().collect(Collectors.toList());
    double span = SagaTime.spanMillis(times);
    return new CheckoutReport(
        invariants.sagas(),
        invariants.completed(),
        invariants.compensated(),
        invariants.stuck(),
        invariants.running(),
        invariants.declined(),
        invariants.outOfStock(),
        plannedDeclined,
        plannedOutOfStock,
        system.shipping().carrierFailures(),
        invariants.chargedCents() - invariants.refundedCents(),
        invariants.confirmedCents(),
        checks,
        violations,
        span > 0 ? millis.size() / (span / 1000) : 0,
        CheckoutDemo.percentile(millis, 0.50),
        CheckoutDemo.percentile(millis, 0.99),
        CheckoutDemo.millisSince(start),
        timings,
        warmUpCheckouts,
        system.paymentOnMariaDb() ? "mariadb" : "postgresql",
        "orchestration",
        orchestratorKills);
  }
}
