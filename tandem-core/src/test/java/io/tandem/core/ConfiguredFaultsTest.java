package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  /** Reaches {@code orchestrator.after-step} three times under the setting in {@code args[0]}. */
  public static final class ReachesThreeTimes {
    public static void main(String[] args) {
      ConfiguredFaults faults = ConfiguredFaults.parse(args[0]);
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> System.out.println("shutdown hook ran")));
      for (int i = 1; i <= 3; i++) {
        System.out.println("before " + i);
        faults.reached(FaultInjector.ORCHESTRATOR_AFTER_STEP);
        System.out.println("after " + i);
      }
    }
  }

  @Test
  void killEndsTheProcessWithSigkillAtTheNthTime(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    Process child =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    ReachesThreeTimes.class.getName(),
                    "orchestrator.after-step=kill@2"))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();

    assertThat(child.exitValue()).as("128 + SIGKILL (9)").isEqualTo(137);
    assertThat(read(out)).isEqualTo("before 1\nafter 1\nbefore 2\n");
    assertThat(read(err))
        .isEqualTo(ConfiguredFaults.FIRED + " orchestrator.after-step kill 2\n")
        .as("no fallback to halt: the signal itself ended it");
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
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
