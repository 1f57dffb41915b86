package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Option handling of {@code tandem demo}; the runs themselves are tested in tandem-examples. */
class DemoCommandTest {

  private static DemoCommand parse(String... args) {
    DemoCommand command = new DemoCommand();
    new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(args);
    return command;
  }

  @Test
  void theCheckoutIsTheDefaultScenarioWithTheDocumentedDefaults() {
    DemoCommand demo = parse();
    assertThat(demo.scenario).isEqualTo(DemoCommand.Scenario.checkout);
    assertThat(demo.mode).isEqualTo(DemoCommand.Mode.orchestration);
    assertThat(demo.checkouts).isEqualTo(1000);
    assertThat(demo.inFlight).isEqualTo(16);
    assertThat(demo.declineRate).isEqualTo(0.05);
    assertThat(demo.outOfStockRate).isEqualTo(0.05);
    assertThat(demo.shippingFailureRate).isEqualTo(0.1);
    assertThat(demo.orchestratorKills).isZero();
  }

  @Test
  void orchestratorKillsAreRefusedWhereThereIsNoOrchestrator() {
    assertThatThrownBy(() -> parse("--mode", "choreography", "--orchestrator-kills", "1").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--orchestrator-kills applies to --mode orchestration: a choreography has no"
                + " orchestrator");
    assertThatThrownBy(() -> parse("--scenario", "outbox", "--orchestrator-kills", "1").call())
        .hasMessage("--orchestrator-kills applies to --scenario checkout, not outbox");
    assertThatThrownBy(() -> parse("--orchestrator-kills", "21").call())
        .hasMessage("orchestrator kills must be between 0 and 20, was 21");
  }

  @Test
  void optionsOfTheOtherScenarioAreRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> parse("--orders", "5").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--orders applies to --scenario outbox, not checkout");
    assertThatThrownBy(() -> parse("--scenario", "outbox", "--decline-rate", "0.2").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--decline-rate applies to --scenario checkout, not outbox");
  }

  @Test
  void aBadMixIsRefusedBeforeAnythingStarts() {
    assertThatThrownBy(() -> parse("--decline-rate", "0.7", "--out-of-stock-rate", "0.5").call())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("decline rate + out-of-stock rate must be at most 1");
  }

  @Test
  void theModeIsParsed() {
    assertThat(parse("--mode", "choreography").mode).isEqualTo(DemoCommand.Mode.choreography);
  }
}
