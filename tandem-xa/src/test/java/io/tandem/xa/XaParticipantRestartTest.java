package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tandem.core.FaultInjector;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.PostgresServer;
import io.tandem.testkit.RequiresMariaDb;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A participant database crashes (an immediate shutdown of a PostgreSQL of the test's own) while a
 * branch is prepared: the branch survives the restart and is finished — by the coordinator's phase
 * 2 retries, or by recovery.
 */
@Tag("slow")
@RequiresMariaDb
class XaParticipantRestartTest {

  private static PostgresServer server() {
    return PostgresServer.embedded()
        .durable(true)
        .serverConfig("max_prepared_transactions", "20")
        .start();
  }

  @Test
  void phaseTwoRetriesUntilTheRestartedParticipantAnswers() throws Exception {
    try (PostgresServer pg = server();
        IsolatedDatabase db = pg.createDatabase("xa_restart");
        Bank bank = new Bank(db, "xa_restart")) {
      long ledger = bank.ledger("alice");
      // After the decision, PostgreSQL crashes; it comes back two seconds later.
      FaultInjector crashPostgres =
          point -> {
            if (point.equals(FaultInjector.XA_AFTER_DECISION)) {
              pg.crash();
              CompletableFuture.runAsync(
                  () -> {
                    try {
                      Thread.sleep(2000); // the outage being simulated, not a wait for a result
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                    pg.startAgain();
                  });
            }
          };
      try (XaCoordinator xa =
          bank.coordinator(bank.settings().phaseTwoTimeout(Duration.ofSeconds(60)).build())
              .faults(crashPostgres)
              .build()) {
        xa.start();
        long account = bank.account("alice");

        xa.inTransaction(tx -> Bank.transfer(tx, "alice", 6));

        assertThat(xa.count(XaOutcome.COMMITTED)).isEqualTo(1);
        assertThat(bank.account("alice")).isEqualTo(account - 6);
        assertThat(bank.ledger("alice")).isEqualTo(ledger + 6);
        assertThat(bank.preparedOfNode()).isZero();
      }
    }
  }

  @Test
  void aBranchPreparedBeforeACrashSurvivesItAndRecoveryFinishesIt() throws Exception {
    try (PostgresServer pg = server();
        IsolatedDatabase db = pg.createDatabase("xa_restart");
        Bank bank = new Bank(db, "xa_restart")) {
      long account = bank.account("bob");
      long ledger = bank.ledger("bob");
      try (XaCoordinator xa =
          bank.coordinator(bank.settings().build())
              .faults(
                  p -> {
                    if (p.equals(FaultInjector.XA_AFTER_DECISION)) {
                      throw new FaultInjector.SimulatedCrash(p);
                    }
                  })
              .build()) {
        xa.start();
        assertThatThrownBy(() -> xa.inTransaction(tx -> Bank.transfer(tx, "bob", 8)))
            .isInstanceOf(FaultInjector.SimulatedCrash.class);
      }

      pg.crash();
      pg.startAgain();

      assertThat(bank.preparedOfNode()).as("both branches survived").isEqualTo(2);
      try (XaCoordinator xa = bank.coordinator(bank.settings().build()).build()) {
        assertThat(xa.start().committed()).isEqualTo(2);
      }
      assertThat(bank.account("bob")).isEqualTo(account - 8);
      assertThat(bank.ledger("bob")).isEqualTo(ledger + 8);
    }
  }
}
