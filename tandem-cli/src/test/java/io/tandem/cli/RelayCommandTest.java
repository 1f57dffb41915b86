package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.tandem.jdbc.Migrations;
import io.tandem.outbox.OutboxRelay;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option handling of {@code tandem relay}; the process itself is tested in RelayClusterTest. */
class RelayCommandTest {

  /** Parses {@code args} after a broker address (one transport is required); connects nowhere. */
  private static RelayCommand parse(String... args) {
    RelayCommand command = new RelayCommand();
    List<String> all = new ArrayList<>(List.of("--kafka-bootstrap", "127.0.0.1:9092"));
    all.addAll(List.of(args));
    new CommandLine(command).parseArgs(all.toArray(String[]::new));
    return command;
  }

  @Test
  void theDefaultsAreTheLibrarysDefaults() {
    RelayCommand relay = parse();
    assertThat(relay.batchSize).isEqualTo(OutboxRelay.DEFAULT_BATCH_SIZE);
    assertThat(relay.lease).isEqualTo(Duration.ofSeconds(OutboxRelay.DEFAULT_LEASE_SECONDS));
    assertThat(relay.heartbeat)
        .isEqualTo(Duration.ofSeconds(OutboxRelay.DEFAULT_HEARTBEAT_SECONDS));
    assertThat(relay.publishTimeout)
        .isEqualTo(Duration.ofSeconds(OutboxRelay.DEFAULT_PUBLISH_TIMEOUT_SECONDS));
    assertThat(relay.pollInterval)
        .isEqualTo(Duration.ofMillis(OutboxRelay.DEFAULT_POLL_INTERVAL_MILLIS));
    assertThat(relay.lingerWhenBusy)
        .isEqualTo(Duration.ofMillis(OutboxRelay.DEFAULT_LINGER_WHEN_BUSY_MILLIS));
  }

  @Test
  void theLingerIsParsedAndABadDurationIsNamed() {
    assertThat(parse("--linger-when-busy", "15ms").lingerWhenBusy).isEqualTo(Duration.ofMillis(15));
    assertThat(parse("--linger-when-busy", "0ms").lingerWhenBusy).isZero();
    assertThatThrownBy(() -> parse("--linger-when-busy", "soon"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--linger-when-busy")
        .hasMessageContaining("'soon' is not a duration");
  }

  @Test
  void settingsOutOfRangeAreRefusedNamingTheOptionBeforeAnythingConnects() {
    assertThatThrownBy(() -> parse("--linger-when-busy", "2s").checkedSettings())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--linger-when-busy must be between 0 and 1 s, was PT2S");
    assertThatThrownBy(() -> parse("--batch-size", "0").checkedSettings())
        .hasMessage("--batch-size must be between 1 and 10000, was 0");
    assertThatThrownBy(() -> parse("--lease", "5s").checkedSettings())
        .hasMessageStartingWith(
            "--lease (PT5S) must exceed --publish-timeout + --heartbeat (PT15S)");
    assertThatThrownBy(() -> parse("--startup-timeout", "0s").checkedSettings())
        .hasMessage("--startup-timeout must be positive, was PT0S");
    assertThat(parse("--linger-when-busy", "1s").checkedSettings()).isNotNull();
    assertThat(parse().startupTimeout).isEqualTo(Duration.ofSeconds(30));

    // Nothing listens on port 1: the option's error comes first, not a connection failure.
    RelayCommand relay =
        parse(
            "--jdbc-url",
            "jdbc:postgresql://127.0.0.1:1/nowhere",
            "--linger-when-busy",
            "2s",
            "--http-port",
            "-1");
    assertThatThrownBy(relay::call)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--linger-when-busy");
  }

  /**
   * Embedded and interrupted (no shutdown hook runs), the command stops its relay before it closes
   * the pool: no relay thread is left cycling on a closed pool after the command returned.
   */
  @Test
  void anInterruptedRelayStopsBeforeItsPoolCloses() throws Exception {
    try (IsolatedDatabase db = TestInfrastructure.postgres().createDatabase("cli_relay_stop")) {
      Migrations.migrate(db.dataSource());
      AtomicReference<Cli> result = new AtomicReference<>();
      Thread command =
          new Thread(
              () ->
                  result.set(
                      Cli.run(
                          "relay",
                          "--jdbc-url",
                          db.jdbcUrl(),
                          "--redis-uri",
                          "redis://127.0.0.1:6379",
                          "--http-port",
                          "-1",
                          "--poll-interval",
                          "50ms")),
              "relay-command-under-test");
      command.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !relayThreads().isEmpty() || !command.isAlive());
      assertThat(relayThreads()).as("the relay started").isNotEmpty();
      command.interrupt();
      command.join(30_000);
      assertThat(command.isAlive()).as("the command returned").isFalse();
      assertThat(relayThreads()).as("relay threads left after the command returned").isEmpty();
    }
  }

  private static List<String> relayThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("tandem-relay-") && !n.equals("tandem-relay-shutdown"))
        .toList();
  }
}
