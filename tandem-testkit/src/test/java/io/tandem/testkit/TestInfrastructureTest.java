package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class TestInfrastructureTest {

  @Test
  void concurrentFirstCallsShareOnePostgresServer() throws Exception {
    List<CompletableFuture<PostgresServer>> calls =
        IntStream.range(0, 4)
            .mapToObj(i -> CompletableFuture.supplyAsync(TestInfrastructure::postgres))
            .toList();

    PostgresServer server = calls.get(0).get();
    assertThat(calls).allSatisfy(call -> assertThat(call.get()).isSameAs(server));
    assertThat(TestInfrastructure.postgres()).isSameAs(server);
    try (IsolatedDatabase database = server.createDatabase("shared_server_test")) {
      assertThat(PostgresServerTest.query(database.dataSource(), "SELECT current_database()"))
          .isEqualTo(database.name());
    }
  }

  @Test
  void concurrentFirstCallsShareOneMariaDbServer() throws Exception {
    List<CompletableFuture<MariaDbServer>> calls =
        IntStream.range(0, 4)
            .mapToObj(i -> CompletableFuture.supplyAsync(TestInfrastructure::mariadb))
            .toList();
    // Skipped (not failed) on a machine without MariaDB: the assumption aborts the test.
    MariaDbServer server = TestInfrastructure.mariadb();
    for (CompletableFuture<MariaDbServer> call : calls) {
      assertThat(call.get()).isSameAs(server);
    }
    try (IsolatedDatabase database = server.createDatabase("shared_server_test")) {
      assertThat(PostgresServerTest.query(database.dataSource(), "SELECT DATABASE()"))
          .isEqualTo(database.name());
    }
  }

  @Test
  void anUnansweringDefaultMariaDbSkipsButAConfiguredOneFails() {
    String nobody = "jdbc:mariadb://127.0.0.1:1/test?user=root";
    assertThatThrownBy(() -> TestInfrastructure.connectMariaDb(null, nobody))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("MariaDB tests skipped")
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("TANDEM_MARIADB_URL");
    assertThatThrownBy(() -> TestInfrastructure.connectMariaDb(nobody, "unused"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot connect to the external MariaDB at " + nobody);
  }

  @Test
  void sharedKafkaBrokerIsStartedOnceAndAnswers() {
    KafkaBroker broker = TestInfrastructure.kafka();

    assertThat(TestInfrastructure.kafka()).isSameAs(broker);
    broker.createTopic("shared-broker-test", 1);
  }

  @Test
  void systemPropertyWinsOverEnvironmentAndBlankMeansUnset() {
    String property = "tandem.testkit.test." + System.nanoTime();
    assertThat(TestInfrastructure.setting(property, "PATH")).isEqualTo(System.getenv("PATH"));
    System.setProperty(property, " jdbc:postgresql://db/test ");
    try {
      assertThat(TestInfrastructure.setting(property, "PATH"))
          .isEqualTo("jdbc:postgresql://db/test");
      System.setProperty(property, " ");
      assertThat(TestInfrastructure.setting(property, "TANDEM_TESTKIT_UNSET_VARIABLE")).isNull();
    } finally {
      System.clearProperty(property);
    }
  }
}
