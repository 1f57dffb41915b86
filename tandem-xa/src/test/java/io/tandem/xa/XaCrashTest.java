package io.tandem.xa;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.ConfiguredFaults;
import io.tandem.core.FaultInjector;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.RequiresMariaDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The coordinator as its own process, killed with SIGKILL (the fault action {@code kill}) in each
 * window of the protocol; a new coordinator with the same node id recovers.
 */
@Tag("slow")
@RequiresMariaDb
class XaCrashTest {
  static Bank bank;
  static Path logs;

  @BeforeAll
  static void databases() throws Exception {
    bank = new Bank("xa_crash");
    logs = Files.createTempDirectory("tandem-xa-crash-");
  }

  @AfterAll
  static void drop() {
    if (bank != null) {
      bank.close();
    }
  }

  @AfterEach
  void finishWhatATestLeft() {
    bank.finishLeftovers();
  }

  /** Runs a transfer of {@code amount} in a child coordinator killed at {@code point}. */
  private static void killedAt(String point, String who, long amount) throws Exception {
    try (JvmProcess p =
        JvmProcess.start(
            logs,
            "coordinator-" + point,
            List.of("-D" + ConfiguredFaults.PROPERTY + "=" + point + "=kill"),
            XaCrashMain.class.getName(),
            JvmProcess.arguments()
                .secret("TANDEM_XA_POSTGRES_URL", bank.postgres.jdbcUrl())
                .secret("TANDEM_XA_MARIADB_URL", bank.mariadb.jdbcUrl())
                .add(bank.node, who, Long.toString(amount)))) {
      p.awaitOutput(XaCrashMain.READY, Duration.ofSeconds(60));
      int status = p.awaitExit(Duration.ofSeconds(60));
      assertThat(status).as("killed by SIGKILL; log " + p.log()).isEqualTo(137);
      assertThat(p.output()).contains(ConfiguredFaults.FIRED).doesNotContain("COMMITTED");
    }
  }

  private static RecoveryReport recoverAsTheSameNode() {
    try (XaCoordinator xa =
        bank.coordinator(bank.settings().presumeAbortAfter(Duration.ofMillis(1)).build()).build()) {
      return xa.start();
    }
  }

  @Test
  void killedAfterPrepareAndBeforeTheDecisionIsRolledBack() throws Exception {
    long account = bank.account("alice");
    long ledger = bank.ledger("alice");
    killedAt(FaultInjector.XA_AFTER_PREPARE, "alice", 11);
    assertThat(bank.preparedOfNode()).isEqualTo(2);

    RecoveryReport r = recoverAsTheSameNode();

    assertThat(r.presumedAborted()).isEqualTo(2);
    assertThat(bank.account("alice")).isEqualTo(account);
    assertThat(bank.ledger("alice")).isEqualTo(ledger);
    assertThat(bank.preparedOfNode()).isZero();
  }

  @Test
  void killedAfterTheDecisionAndBeforePhaseTwoIsCommitted() throws Exception {
    long account = bank.account("alice");
    long ledger = bank.ledger("alice");
    killedAt(FaultInjector.XA_AFTER_DECISION, "alice", 12);
    assertThat(bank.preparedOfNode()).isEqualTo(2);
    assertThat(bank.decisions()).isEqualTo(1);

    RecoveryReport r = recoverAsTheSameNode();

    assertThat(r.committed()).isEqualTo(2);
    assertThat(bank.account("alice")).isEqualTo(account - 12);
    assertThat(bank.ledger("alice")).isEqualTo(ledger + 12);
    assertThat(bank.preparedOfNode()).isZero();
  }

  @Test
  void killedInPhaseTwoIsFinished() throws Exception {
    long account = bank.account("bob");
    long ledger = bank.ledger("bob");
    killedAt(FaultInjector.XA_MID_PHASE_TWO, "bob", 13);
    assertThat(bank.account("bob")).isEqualTo(account - 13);
    assertThat(bank.preparedOfNode()).isEqualTo(1);

    RecoveryReport r = recoverAsTheSameNode();

    assertThat(r.committed()).isEqualTo(1);
    assertThat(bank.ledger("bob")).isEqualTo(ledger + 13);
    assertThat(bank.preparedOfNode()).isZero();
  }
}
