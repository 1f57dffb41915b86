package io.tandem.saga.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.jdbc.Migrations;
import io.tandem.saga.SagaInstance;
import io.tandem.saga.SagaQueries;
import io.tandem.saga.SagaStatus;
import io.tandem.saga.SagaStepRecord;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.JvmProcess;
import io.tandem.testkit.TestInfrastructure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A saga's step timeout is a row, not a timer in a process's memory: armed by one orchestrator
 * process that is then SIGKILLed, it fires in a new process that never saw the saga start. The JDBC
 * URL reaches the children in a file readable by the owner only, never on their command line.
 */
@Tag("slow") // two child JVMs and a 4 s step timeout: about 25 s on a busy machine
class SagaTimerRestartTest {
  @Test
  void aTimeoutArmedByAKilledOrchestratorFiresInTheNextOne() throws Exception {
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("saga_timer_kill")) {
      Migrations.migrate(db.dataSource());
      Path dir = Files.createTempDirectory("saga-timer-kill-");
      Path urlFile = dir.resolve("jdbc-url");
      Files.writeString(urlFile, db.jdbcUrl(), StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(urlFile, PosixFilePermissions.fromString("rw-------"));
      SagaQueries sagas = SagaQueries.of(db.dataSource());

      UUID id;
      Instant killedAt;
      try (JvmProcess first = child(dir, "orchestrator-1", "start", urlFile)) {
        first.awaitOutput(TimerOrchestratorMain.STARTED, Duration.ofSeconds(60));
        first.kill();
        killedAt = Instant.now();
        String out = first.output();
        int at = out.indexOf(TimerOrchestratorMain.STARTED);
        id =
            UUID.fromString(
                out.substring(at + TimerOrchestratorMain.STARTED.length()).strip().split("\\s")[0]);
      }
      SagaInstance armed = sagas.find(id).orElseThrow();
      assertThat(armed.status())
          .as("killed before its step timed out")
          .isEqualTo(SagaStatus.RUNNING);
      assertThat(armed.steps()).extracting(SagaStepRecord::outcome).containsExactly("PENDING");

      try (JvmProcess second = child(dir, "orchestrator-2", "resume", urlFile)) {
        second.awaitOutput(TimerOrchestratorMain.READY, Duration.ofSeconds(60));
        Awaitility.await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> sagas.find(id).orElseThrow().status() == SagaStatus.COMPENSATING);
        assertThat(second.isAlive()).isTrue();
      }

      SagaInstance fired = sagas.find(id).orElseThrow();
      assertThat(fired.steps())
          .extracting(SagaStepRecord::command, SagaStepRecord::outcome)
          .as("the forward command timed out; its compensation was sent")
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple("Reserve", "TIMED_OUT"),
              org.assertj.core.groups.Tuple.tuple("Release", "PENDING"));
      Instant firedAt = fired.steps().get(0).endedAt().orElseThrow();
      assertThat(firedAt)
          .as("no earlier than the step timeout after the start")
          .isAfterOrEqualTo(armed.startedAt().plus(TimerOrchestratorMain.STEP_TIMEOUT));
      assertThat(fired.lastError()).hasValueSatisfying(e -> assertThat(e).contains("no reply"));
      System.out.println(
          "saga "
              + id
              + " armed at "
              + armed.startedAt()
              + ", orchestrator killed at "
              + killedAt
              + ", timeout fired in the new process at "
              + firedAt);
    }
  }

  private static JvmProcess child(Path dir, String name, String mode, Path urlFile) {
    return JvmProcess.start(
        dir,
        name,
        List.of(),
        TimerOrchestratorMain.class.getName(),
        List.of(mode, urlFile.toString()));
  }
}
