package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

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
