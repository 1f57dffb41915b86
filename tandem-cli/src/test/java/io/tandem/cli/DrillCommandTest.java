package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option handling of {@code tandem drill}; the drills themselves are tested in tandem-drill. */
class DrillCommandTest {

  private static DrillCommand parse(String... args) {
    DrillCommand command = new DrillCommand();
    new CommandLine(command).parseArgs(args);
    return command;
  }

  @Test
  void defaultsAreTheShortForm() {
    DrillCommand drill = parse();
    assertThat(drill.names).isEmpty();
    assertThat(drill.events).isEqualTo(300);
    assertThat(drill.outage).isEqualTo(Duration.ofSeconds(30));
    assertThat(drill.withoutProtection).isFalse();
    assertThat(drill.relay).isEqualTo("polling");
    assertThat(parse("--relay", "cdc", "cdc-stopped").relay).isEqualTo("cdc");
  }

  @Test
  void anUnknownDrillIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> parse("relay-crash").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown drill 'relay-crash'")
        .hasMessageContaining("relay-crash-after-ack");
  }

  @Test
  void badSettingsAreRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> parse("--events", "3").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--events must be between 20");
    assertThatThrownBy(() -> parse("--jdbc-url", "jdbc:mariadb://127.0.0.1/test").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--jdbc-url must be a jdbc:postgresql: URL");
    assertThatThrownBy(() -> parse("--relay", "binlog").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--relay must be polling or cdc, was binlog");
  }

  @Test
  void listingNeedsNoServers() throws Exception {
    assertThat(parse("--list").call()).isZero();
  }
}
