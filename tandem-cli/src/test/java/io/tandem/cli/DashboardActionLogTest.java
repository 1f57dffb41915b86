package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.testkit.DatabaseServer;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dashboard's audit log on both databases: each action is recorded with its columns in place,
 * listed newest first, with the operator clipped to the column's 255 characters.
 */
class DashboardActionLogTest {
  static Stream<DatabaseServer> servers() {
    return Stream.of(TestInfrastructure.postgres(), TestInfrastructure.mariadb());
  }

  @ParameterizedTest
  @MethodSource("servers")
  void actionsAreRecordedAndListedNewestFirst(DatabaseServer server) {
    try (IsolatedDatabase db = server.createDatabase("cli_actions")) {
      Migrations.migrate(db.dataSource());
      DashboardActionLog log = new DashboardActionLog(db.dataSource(), Dialect.of(db.dataSource()));
      Instant before = Instant.now().minusSeconds(60);
      log.record("alice", "10.0.0.1", "replay", "event e-1", "DONE", "replayed");
      log.record("b".repeat(300), "10.0.0.2", "skip", "event e-2", "FAILED", "no token");

      List<Map<String, Object>> actions = log.actions();

      assertThat(actions).hasSize(2);
      Map<String, Object> newest = actions.get(0);
      assertThat(newest)
          .containsEntry("operator", "b".repeat(255))
          .containsEntry("remote", "10.0.0.2")
          .containsEntry("action", "skip")
          .containsEntry("target", "event e-2")
          .containsEntry("outcome", "FAILED")
          .containsEntry("detail", "no token");
      assertThat(actions.get(1))
          .containsEntry("operator", "alice")
          .containsEntry("remote", "10.0.0.1")
          .containsEntry("action", "replay")
          .containsEntry("target", "event e-1")
          .containsEntry("outcome", "DONE")
          .containsEntry("detail", "replayed");
      assertThat((Long) newest.get("id")).isGreaterThan((Long) actions.get(1).get("id"));
      assertThat(Instant.parse((String) newest.get("at"))).isAfter(before);
    }
  }
}
