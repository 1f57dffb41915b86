package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The broker client options of {@code tandem relay} ({@code --kafka-property}, {@code
 * --kafka-config}, {@code --nats-credentials}): parsed, read and refused with a clear error before
 * anything connects, and their values never in an error or in the start line.
 */
class BrokerClientOptionsTest {
  private static final String SECRET = "hunter2";
  private static final String JAAS =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"app\""
          + " password=\""
          + SECRET
          + "\";";
  @TempDir Path dir;

  private static TransportOptions parse(String... args) {
    RelayCommand command = new RelayCommand();
    new CommandLine(command).parseArgs(args);
    return command.transport;
  }

  private static TransportOptions kafka(String... args) {
    List<String> all = new ArrayList<>(List.of("--kafka-bootstrap", "127.0.0.1:1"));
    all.addAll(List.of(args));
    return parse(all.toArray(String[]::new));
  }

  @Test
  void theFileIsReadAndEachPropertyWinsOverIt() throws Exception {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file,
        "# SASL/SCRAM over TLS\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
            + "sasl.jaas.config="
            + JAAS
            + "\ncompression.type=gzip\n");
    TransportOptions options =
        kafka(
            "--kafka-config",
            file.toString(),
            "--kafka-property",
            "compression.type=lz4",
            "--kafka-property",
            "linger.ms = 5");
    Map<String, String> settings = options.kafkaClient.settings();
    assertThat(settings)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("sasl.jaas.config", JAAS)
        .containsEntry("compression.type", "lz4")
        .containsEntry("linger.ms", "5");
    assertThat(options.connectionNote())
        .contains("security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-512", "sasl.jaas.config")
        .doesNotContain(SECRET)
        .doesNotContain("ScramLoginModule");
  }

  @Test
  void aPropertyWithoutEqualsIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> kafka("--kafka-property", "sasl.jaas.config:" + SECRET).build(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--kafka-property needs KEY=VALUE")
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(() -> kafka("--kafka-property", "=" + SECRET).build(null))
        .hasMessageContaining("--kafka-property needs a key before '='")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void aMissingOrUnreadableFileIsSaid() throws Exception {
    Path missing = dir.resolve("nope.properties");
    assertThatThrownBy(() -> kafka("--kafka-config", missing.toString()).build(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--kafka-config "
                + missing
                + ": no such file (give the path of a Java properties file)");
    assertThatThrownBy(() -> kafka("--kafka-config", dir.toString()).build(null))
        .hasMessageStartingWith("--kafka-config " + dir + ": cannot be read");
  }

  @Test
  void aSettingTandemFixesIsRefusedNamingTheOption() {
    assertThatThrownBy(() -> kafka("--kafka-property", "acks=1").build(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--kafka-property(acks) = '1' is not allowed");
    assertThatThrownBy(() -> kafka("--kafka-property", "bootstrap.servers=x:1").build(null))
        .hasMessageStartingWith("--kafka-property(bootstrap.servers) cannot be set");
  }

  @Test
  void clientOptionsOfAnotherBrokerAreRefused() {
    assertThatThrownBy(
            () ->
                parse("--redis-uri", "redis://127.0.0.1:1", "--kafka-property", "a=b").build(null))
        .hasMessage("--kafka-property and --kafka-config apply to --kafka-bootstrap only");
    assertThatThrownBy(() -> kafka("--nats-credentials", "x.creds").build(null))
        .hasMessage("--nats-credentials applies to --nats-url only");
  }

  @Test
  void theNatsCredentialsFileIsReadAndCheckedBeforeConnecting() throws Exception {
    Path missing = dir.resolve("app.creds");
    assertThatThrownBy(() -> nats(missing).build(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--nats-credentials "
                + missing
                + ": no such file (give the .creds file of the NATS user)");
    Path notCreds = dir.resolve("wrong.creds");
    Files.writeString(notCreds, "user=app\npassword=" + SECRET + "\n");
    assertThatThrownBy(() -> nats(notCreds).build(null))
        .hasMessageContaining("is not a NATS credentials file")
        .hasMessageContaining(NatsCredentials.SEED_BLOCK)
        .hasMessageNotContaining(SECRET);
    assertThatThrownBy(() -> nats(dir).build(null))
        .hasMessageStartingWith("--nats-credentials " + dir + ": cannot be read");

    Path creds = dir.resolve("ok.creds");
    Files.writeString(creds, fakeCreds());
    TransportOptions options = nats(creds);
    assertThat(NatsCredentials.read(creds)).isNotNull();
    assertThat(options.connectionNote()).contains(creds.toString()).doesNotContain(SECRET);
  }

  private static TransportOptions nats(Path creds) {
    return parse("--nats-url", "nats://127.0.0.1:1", "--nats-credentials", creds.toString());
  }

  /** The layout of {@code nsc generate creds}, with a made-up JWT and seed. */
  static String fakeCreds() {
    return "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5In0.e30.x\n"
        + "------END NATS USER JWT------\n\n"
        + "-----BEGIN USER NKEY SEED-----\nSUA"
        + SECRET
        + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
        + "------END USER NKEY SEED------\n";
  }
}
