package io.tandem.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JvmProcessTest {
  private static final String URL =
      "jdbc:postgresql://db:5432/orders?user=app&Password=hunter2&ssl=true";

  @TempDir Path dir;

  @Test
  void aSecretReachesTheChildThroughItsEnvironmentAndNeverItsCommandLine() throws Exception {
    JvmProcess.Arguments args =
        JvmProcess.arguments()
            .secret("TANDEM_TEST_URL", URL)
            .add("plain-argument")
            .environment("EXPECTED_URL", URL);
    try (JvmProcess child =
        JvmProcess.start(dir, "echo", List.of(), SecretEchoMain.class.getName(), args)) {
      child.awaitOutput("RESOLVED", Duration.ofSeconds(60));
      assertThat(child.output()).contains("RESOLVED true plain-argument");

      // What ps shows: the child's command line as the kernel has it.
      String commandLine =
          Files.readString(Path.of("/proc", Long.toString(child.pid()), "cmdline"))
              .replace('\0', ' ');
      assertThat(commandLine)
          .contains(SecretEchoMain.class.getName(), "env:TANDEM_TEST_URL", "plain-argument")
          .doesNotContain("hunter2");
    }
    assertThat(Files.readString(dir.resolve("echo.log"))).doesNotContain("hunter2");
  }

  @Test
  void refusesACredentialOnTheCommandLineWithoutRepeatingIt() {
    for (String secret :
        List.of(
            URL,
            "amqp://guest:hunter2@127.0.0.1:5672/",
            "nats://hunter2@127.0.0.1:4222",
            "redis://:hunter2@127.0.0.1:6379")) {
      assertThatThrownBy(
              () -> JvmProcess.command(List.of(), SecretEchoMain.class.getName(), List.of(secret)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("ps")
          .hasMessageContaining("JvmProcess.Arguments.secret")
          .message()
          .doesNotContain("hunter2");
      assertThatThrownBy(
              () ->
                  JvmProcess.command(
                      List.of("-Dbroker=" + secret), SecretEchoMain.class.getName(), List.of()))
          .isInstanceOf(IllegalArgumentException.class)
          .message()
          .doesNotContain("hunter2");
    }
  }

  @Test
  void aMissingVariableIsNamed() {
    assertThatThrownBy(() -> JvmProcess.argument("env:TANDEM_SURELY_NOT_SET_42"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("TANDEM_SURELY_NOT_SET_42");
    assertThat(JvmProcess.argument("plain")).isEqualTo("plain");
  }
}
