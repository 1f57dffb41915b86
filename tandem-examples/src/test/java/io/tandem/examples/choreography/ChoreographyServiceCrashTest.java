package io.tandem.examples.choreography;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.MariaDbServer;
import io.tandem.testkit.TestInfrastructure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * A choreography has no orchestrator to kill; its counterpart is a service dying mid-run. The
 * payment service (on MariaDB when one answers) runs as its own process and is killed with SIGKILL
 * while checkouts flow through it, then started again: every checkout ends as its data says, no
 * payment is charged or refunded twice, money and stock are conserved, nothing is dead-lettered.
 */
@Tag("slow")
class ChoreographyServiceCrashTest {
  private static final int ORDERS = 300;

  @Test
  void aPaymentServiceKilledMidRunIsStartedAgainAndEveryCheckoutEndsOnce() throws Exception {
    ChoreographedCheckoutBuilder builder =
        ChoreographedCheckout.builder()
            .postgres(TestInfrastructure.postgres())
            .kafka(TestInfrastructure.kafka())
            .externalServices(PaymentService.NAME)
            .progress(System.out);
    try {
      MariaDbServer mariadb = TestInfrastructure.mariadb();
      builder.paymentDatabase(mariadb);
    } catch (TestAbortedException noMariaDb) {
      // payment on PostgreSQL
    }
    try (ChoreographedCheckout checkout = builder.build()) {
      checkout.start();
      Path dir = Files.createTempDirectory("choreography-payment-");
      List<PlacedOrder> orders;
      try (JvmProcess first =
          ChoreographyServiceMain.startProcess(checkout, PaymentService.NAME, dir, "payment-1")) {
        first.awaitOutput(ChoreographyServiceMain.READY, Duration.ofSeconds(60));
        orders = checkout.run(ORDERS, new FailureMix(10, 10, 20));
        await() // the payment service's inbox recorded 60 events: it is mid-run
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> inboxRecords(checkout) >= ORDERS / 5);
        first.kill();
      }
      long finishedAtKill = finished(checkout, orders);
      System.out.println("payment service killed with " + finishedAtKill + " checkouts finished");
      assertThat(finishedAtKill).as("killed in the middle of the run").isLessThan(ORDERS);

      try (JvmProcess second =
          ChoreographyServiceMain.startProcess(checkout, PaymentService.NAME, dir, "payment-2")) {
        second.awaitOutput(ChoreographyServiceMain.READY, Duration.ofSeconds(60));
        assertThat(checkout.awaitAllFinished(Duration.ofMinutes(3)))
            .as("every checkout finishes")
            .isTrue();
        assertThat(second.isAlive()).isTrue();
      }

      ChoreographyInvariants inv = checkout.invariants();
      System.out.print(inv.toTable());
      assertThat(inv.holds()).as(inv.toTable()).isTrue();
      assertThat(inv.placed()).isEqualTo(ORDERS);
      assertThat(inv.declined()).isEqualTo(ORDERS / 10);
      assertThat(inv.outOfStock()).isEqualTo(ORDERS / 10);
      assertThat(inv.confirmed()).isEqualTo(ORDERS - ORDERS / 5);
    }
  }

  private static long inboxRecords(ChoreographedCheckout checkout) throws SQLException {
    try (Connection c = checkout.database(PaymentService.NAME).getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM tandem_inbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long finished(ChoreographedCheckout checkout, List<PlacedOrder> orders) {
    return orders.stream()
        .filter(o -> checkout.outcome(o.orderId()) != CheckoutOutcome.PENDING)
        .count();
  }
}
