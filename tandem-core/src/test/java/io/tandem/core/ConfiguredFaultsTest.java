package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConfiguredFaultsTest {

  @Test
  void offUnlessTheSystemPropertyIsSet() {
    String before = System.getProperty(ConfiguredFaults.PROPERTY);
    try {
      System.clearProperty(ConfiguredFaults.PROPERTY);
      assertThat(ConfiguredFaults.fromSystemProperty()).isSameAs(FaultInjector.NONE);
      System.setProperty(ConfiguredFaults.PROPERTY, "  ");
      assertThat(ConfiguredFaults.fromSystemProperty()).isSameAs(FaultInjector.NONE);
      System.setProperty(ConfiguredFaults.PROPERTY, "relay.after-ack=crash@2");
      assertThat(ConfiguredFaults.fromSystemProperty()).isInstanceOf(ConfiguredFaults.class);
    } finally {
      if (before == null) {
        System.clearProperty(ConfiguredFaults.PROPERTY);
      } else {
        System.setProperty(ConfiguredFaults.PROPERTY, before);
      }
    }
  }

  @Test
  void crashFiresFromTheNthTimeOnAndOnlyAtItsPoint() {
    ConfiguredFaults faults = ConfiguredFaults.parse("relay.after-ack=crash@3");
    faults.reached(FaultInjector.RELAY_AFTER_ACK);
    faults.reached(FaultInjector.RELAY_AFTER_ACK);
    faults.reached(FaultInjector.RELAY_AFTER_CLAIM);
    faults.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    assertThatThrownBy(() -> faults.reached(FaultInjector.RELAY_AFTER_ACK))
        .isInstanceOf(FaultInjector.SimulatedCrash.class)
        .hasMessageContaining("relay.after-ack");
    assertThatThrownBy(() -> faults.reached(FaultInjector.RELAY_AFTER_ACK))
        .isInstanceOf(FaultInjector.SimulatedCrash.class);
  }

  @Test
  void timedStallBlocksForItsDuration() {
    ConfiguredFaults faults =
        ConfiguredFaults.parse("consumer.after-commit=stall:200ms, service.after-commit=halt@9");
    assertThat(faults.points())
        .containsExactly(FaultInjector.CONSUMER_AFTER_COMMIT, FaultInjector.SERVICE_AFTER_COMMIT);
    long start = System.nanoTime();
    faults.reached(FaultInjector.CONSUMER_AFTER_COMMIT);
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(190);
  }

  @Test
  void malformedSettingsAreRejectedWithWhatIsWrong() {
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected POINT=ACTION[@N]");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-akc=halt"))
        .hasMessageContaining("unknown fault point 'relay.after-akc'")
        .hasMessageContaining("relay.after-ack");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack=explode"))
        .hasMessageContaining("unknown action 'explode'");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack=halt@0"))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack=halt@x"))
        .hasMessageContaining("'@x'");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack=stall:-5s"))
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> ConfiguredFaults.parse("relay.after-ack=halt,relay.after-ack=crash"))
        .hasMessageContaining("configured twice");
    assertThatThrownBy(() -> ConfiguredFaults.parse(" , "))
        .hasMessageContaining("names no fault point");
  }
}
