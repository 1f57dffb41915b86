package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import picocli.CommandLine;

/**
 * Every {@code tandem} command that takes a URL, run with URLs that hold a password (every
 * credential form: JDBC's property in any case, AMQP's, NATS's and Redis's user information), on
 * the paths that print: a server that does not answer, one that refuses the credential, one that
 * works, a URL of the wrong form, a malformed option. The password appears nowhere: not in the
 * command's output, not in what it printed to System.out/err, not in its logs.
 */
@Tag("slow") // 90 s: relays on three brokers, connection attempts retried for 10 s
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CredentialsNeverPrintedTest {
  private static final String SECRET = "hunter2";
  private static final String PG_DEAD =
      "jdbc:postgresql://127.0.0.1:1/orders?user=app&Password=" + SECRET;
  private static final String MARIADB_DEAD =
      "jdbc:mariadb://127.0.0.1:1/orders?user=app&password=" + SECRET;
  private static final String MARIADB_REFUSED =
      "jdbc:mariadb://127.0.0.1:3306/test?user=root&PASSWORD=" + SECRET;
  private static final String AMQP = "amqp://guest:" + SECRET + "@127.0.0.1:5672/";
  private static final String NATS = "nats://app:" + SECRET + "@127.0.0.1:4222";
  private static final String REDIS = "redis://:" + SECRET + "@127.0.0.1:6379";

  private IsolatedDatabase db;
  private String pgLive; // trust authentication: the password is sent and ignored
  private final Set<String> covered = new LinkedHashSet<>();

  @BeforeAll
  void aMigratedDatabase() throws Exception {
    db = TestInfrastructure.postgres().createDatabase("cli_secrets");
    Migrations.migrate(db.dataSource());
    pgLive = db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "password=" + SECRET;
    Outbox outbox = Outbox.create(Dialect.of(db.dataSource()));
    Event e =
        Event.builder().aggregate("Order", "o-1", 1).eventType("OrderPlaced").payload("{}").build();
    Transactions.inTransaction(
        db.dataSource(),
        c -> {
          outbox.append(c, e);
          return null;
        });
  }

  @AfterAll
  void drop() {
    db.close();
  }

  /** Every database command on a database that works with the password (trust: ignored). */
  @Test
  void theDatabaseCommandsNeverPrintThePassword() {
    String id = UUID.randomUUID().toString();
    String url = pgLive;
    String[][] runs = {
      {"migrate", "--jdbc-url", url},
      {"outbox", "status", "--jdbc-url", url},
      {"outbox", "quarantined", "--jdbc-url", url, "--json"},
      {"outbox", "replay", id, "--jdbc-url", url},
      {"outbox", "skip", id, "--reason", "test", "--jdbc-url", url},
      {"outbox", "retention", "--older-than", "7d", "--dry-run", "--jdbc-url", url},
      {"inbox", "dead-letters", "--consumer", "c", "--jdbc-url", url},
      {"inbox", "gaps", "--consumer", "c", "--jdbc-url", url},
      {
        "inbox",
        "advance",
        "--consumer",
        "c",
        "--aggregate-type",
        "Order",
        "--aggregate-id",
        "o-9",
        "--to-version",
        "1",
        "--reason",
        "test",
        "--jdbc-url",
        url
      },
      {"inbox", "advances", "--consumer", "c", "--jdbc-url", url},
      {"cdc", "status", "--jdbc-url", url},
      {"inbox", "retention", "--older-than", "7d", "--dry-run", "--jdbc-url", url},
      {"saga", "list", "--jdbc-url", url},
      {"saga", "show", id, "--jdbc-url", url},
      {"saga", "retry-stuck", id, "--jdbc-url", url},
      {"saga", "purge", "--older-than", "7d", "--dry-run", "--jdbc-url", url},
      {"trail", "--service", "orders=" + url, id},
      {"xa", "status", "--jdbc-url", url, "--participant", "a=" + url},
      {
        "xa",
        "resolve",
        "n/" + id,
        "--rollback",
        "--yes",
        "--jdbc-url",
        url,
        "--participant",
        "a=" + url
      },
      {"xa", "recover", "--node", "n", "--jdbc-url", url, "--participant", "a=" + url},
    };
    for (String[] args : runs) {
      assertNoSecret(args);
    }
  }

  /**
   * The paths where a connection fails: a server that does not answer, one that refuses the
   * credential. Every command opens its database through the same code (a pool retried for 10 s),
   * so one command of each way in stands for them.
   */
  @Test
  void aFailedConnectionNeverPrintsThePassword() {
    assertNoSecret("migrate", "--jdbc-url", PG_DEAD);
    assertNoSecret("outbox", "status", "--jdbc-url", MARIADB_REFUSED);
    assertNoSecret("trail", "--service", "orders=" + MARIADB_REFUSED, "id");
    assertNoSecret("xa", "status", "--jdbc-url", pgLive, "--participant", "a=" + MARIADB_DEAD);
  }

  @Test
  void wrongFormsAndMalformedOptionsNeverPrintThePassword() throws Exception {
    assertNoSecret(
        "outbox", "status", "--jdbc-url", "jdbc:sqlserver://db;user=a;password=" + SECRET);
    assertNoSecret("trail", "--service", PG_DEAD, "id"); // NAME= forgotten: picocli's own error
    assertNoSecret("migrate", "--jdbc-url", PG_DEAD, "--db-user"); // option without its value
    assertNoSecret("outbox", "retention", "--older-than", PG_DEAD); // not a duration
    // refused at start, or running and failing to connect: either way, nothing printed
    assertNoSecretWhileRunning(
        "relay",
        "--jdbc-url",
        pgLive,
        "--http-port",
        "-1",
        "--rabbitmq-uri",
        "amqp://guest:" + SECRET);
    // refused at start, or running and failing to connect: either way, nothing printed
    assertNoSecretWhileRunning(
        "relay",
        "--jdbc-url",
        pgLive,
        "--http-port",
        "-1",
        "--redis-uri",
        "redis://:" + SECRET + "@");
    // refused at start, or running and failing to connect: either way, nothing printed
    assertNoSecretWhileRunning(
        "relay",
        "--jdbc-url",
        pgLive,
        "--http-port",
        "-1",
        "--nats-url",
        "nats://a:" + SECRET + "@:x");
  }

  @Test
  void theServerCommandsNeverPrintThePassword() {
    // They fail at the database that does not answer before starting anything heavy.
    assertNoSecret("demo", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret(
        "demo", "--scenario", "outbox", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret(
        "demo", "--mariadb-url", MARIADB_DEAD, "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "k:1");
    assertNoSecret("bench", "relay", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret("bench", "consumer", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret("bench", "saga", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret("bench", "pipeline", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret("bench", "xa", "--jdbc-url", PG_DEAD, "--mariadb-url", MARIADB_DEAD);
    assertNoSecret("compare", "--jdbc-url", PG_DEAD, "--mariadb-url", MARIADB_DEAD);
    assertNoSecret("dashboard", "--jdbc-url", PG_DEAD, "--port", "0");
    assertNoSecret(
        "drill", "broker-outage", "--jdbc-url", PG_DEAD, "--kafka-bootstrap", "127.0.0.1:1");
    assertNoSecret("soak", "--jdbc-url", PG_DEAD, "--duration", "20s");
    for (String broker :
        List.of("--kafka-bootstrap", "--rabbitmq-uri", "--nats-url", "--redis-uri")) {
      assertNoSecret(
          "relay", "--jdbc-url", PG_DEAD, broker, broker.contains("kafka") ? "k:1" : AMQP);
    }
  }

  /** The relay connected to each broker with a password, publishing and logging as it goes. */
  @Test
  void aRunningRelayNeverPrintsThePassword() throws Exception {
    for (String[] broker :
        List.of(
            new String[] {"--rabbitmq-uri", AMQP},
            new String[] {"--nats-url", NATS},
            new String[] {"--redis-uri", REDIS})) {
      assertNoSecretWhileRunning(
          "relay",
          "--jdbc-url",
          pgLive,
          broker[0],
          broker[1],
          "--http-port",
          "-1",
          "--poll-interval",
          "100ms",
          "--publish-timeout",
          "1s");
    }
  }

  /** The dashboard serving, with its database's password in the URL it was given. */
  @Test
  void aRunningDashboardNeverPrintsThePassword() throws Exception {
    assertNoSecretWhileRunning("dashboard", "--jdbc-url", pgLive, "--port", "0");
    assertNoSecretWhileRunning(
        "dashboard", "--jdbc-url", pgLive, "--port", "0", "--participant", "a=" + pgLive);
  }

  /**
   * Kafka client settings holding a SASL password (a JAAS line), given by {@code --kafka-property}
   * and by {@code --kafka-config}, on a broker whose listener does not speak SASL: the start-up
   * check fails and says so. A malformed {@code --kafka-property}, and a NATS credentials file
   * whose seed the client cannot use, print no secret either.
   */
  @Test
  void kafkaClientSettingsAndNatsCredentialsNeverPrintTheirSecrets() throws Exception {
    String jaas =
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"app\" password=\""
            + SECRET
            + "\";";
    String kafka = TestInfrastructure.kafka().bootstrapServers();
    String[] common = {"--jdbc-url", pgLive, "--http-port", "-1", "--publish-timeout", "2s"};
    String sasl =
        assertNoSecret(
            concat(
                new String[] {"relay", "--kafka-bootstrap", kafka},
                common,
                new String[] {
                  "--kafka-property",
                  "security.protocol=SASL_PLAINTEXT",
                  "--kafka-property",
                  "sasl.mechanism=PLAIN",
                  "--kafka-property",
                  jaas
                }));
    assertThat(sasl).contains("Kafka at " + kafka).contains("security.protocol=SASL_PLAINTEXT");
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tandem-secrets");
    java.nio.file.Path config = dir.resolve("kafka.properties");
    java.nio.file.Files.writeString(
        config, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" + jaas + "\n");
    assertThat(
            assertNoSecret(
                concat(
                    new String[] {"relay", "--kafka-bootstrap", kafka},
                    common,
                    new String[] {"--kafka-config", config.toString()})))
        .contains("Kafka at " + kafka)
        .contains("security.protocol=SASL_PLAINTEXT");
    assertThat(
            assertNoSecret(
                concat(
                    new String[] {"relay", "--kafka-bootstrap", kafka},
                    common,
                    new String[] {"--kafka-property", "ssl.key.password:" + SECRET})))
        .contains("--kafka-property needs KEY=VALUE");
    java.nio.file.Path creds = dir.resolve("app.creds");
    java.nio.file.Files.writeString(creds, BrokerClientOptionsTest.fakeCreds());
    assertThat(java.nio.file.Files.readString(creds)).contains(SECRET);
    assertNoSecretWhileRunning(
        "relay",
        "--jdbc-url",
        pgLive,
        "--http-port",
        "-1",
        "--nats-url",
        "nats://127.0.0.1:4222",
        "--nats-credentials",
        creds.toString(),
        "--poll-interval",
        "100ms",
        "--publish-timeout",
        "1s");
  }

  /**
   * Every other command that talks to Kafka ({@code demo} in both scenarios, each {@code bench} on
   * Kafka, {@code compare}, {@code drill}), with a SASL password in {@code --kafka-property} and in
   * {@code --kafka-config}, against a SASL listener that refuses it: each stops at its start-up
   * check, before any server starts, saying the login was refused. The same settings without {@code
   * --kafka-bootstrap}, and a malformed {@code --kafka-property}, print no secret either.
   */
  @Test
  void everyKafkaCommandsClientSettingsNeverPrintTheirSecrets() throws Exception {
    String jaas =
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\"tandem\" password=\""
            + SECRET
            + "\";";
    java.nio.file.Path config =
        java.nio.file.Files.createTempDirectory("tandem-secrets").resolve("sasl.properties");
    java.nio.file.Files.writeString(
        config, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n" + jaas + "\n");
    try (io.tandem.testkit.KafkaBroker sasl =
        io.tandem.testkit.KafkaBroker.embedded().defaultPartitions(1).saslListener().start()) {
      String[] byProperty = {
        "--kafka-bootstrap",
        sasl.saslBootstrapServers(),
        "--kafka-property",
        "security.protocol=SASL_PLAINTEXT",
        "--kafka-property",
        "sasl.mechanism=PLAIN",
        "--kafka-property",
        jaas
      };
      String[] byFile = {
        "--kafka-bootstrap", sasl.saslBootstrapServers(), "--kafka-config", config.toString()
      };
      String[][] commands = {
        {"demo", "--jdbc-url", PG_DEAD},
        {"demo", "--scenario", "outbox", "--jdbc-url", PG_DEAD},
        {"bench", "relay", "--jdbc-url", PG_DEAD},
        {"bench", "consumer", "--jdbc-url", PG_DEAD},
        {"bench", "pipeline", "--jdbc-url", PG_DEAD},
        {"bench", "saga", "--jdbc-url", PG_DEAD},
        {"compare", "--jdbc-url", PG_DEAD, "--mariadb-url", MARIADB_DEAD},
        {"drill", "broker-outage", "--jdbc-url", PG_DEAD},
      };
      for (String[] command : commands) {
        for (String[] kafka : List.of(byProperty, byFile)) {
          assertThat(assertNoSecret(concat(command, kafka)))
              .contains("refused the connection with security.protocol=SASL_PLAINTEXT")
              .contains("SaslAuthenticationException");
        }
      }
      assertThat(
              assertNoSecret(
                  concat(
                      new String[] {"bench", "relay"},
                      new String[] {"--kafka-config", config.toString()})))
          .contains("give --kafka-bootstrap host:port too");
      assertThat(
              assertNoSecret(
                  concat(
                      new String[] {"drill", "broker-outage"},
                      byFile,
                      new String[] {"--kafka-property", "ssl.key.password:" + SECRET})))
          .contains("--kafka-property needs KEY=VALUE");
    }
  }

  private static String[] concat(String[]... parts) {
    return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
  }

  /** Every command with an option that takes a URL is run above (a new one must be added). */
  @Test
  @Order(Integer.MAX_VALUE)
  void everyCommandThatTakesAUrlIsCovered() throws Exception {
    if (covered.isEmpty()) { // run alone
      theDatabaseCommandsNeverPrintThePassword();
      theServerCommandsNeverPrintThePassword();
      kafkaClientSettingsAndNatsCredentialsNeverPrintTheirSecrets();
      everyKafkaCommandsClientSettingsNeverPrintTheirSecrets();
    }
    List<String> missing = new ArrayList<>();
    walk(TandemCommand.commandLine(), missing);
    assertThat(missing).as("commands taking a URL that this test does not run").isEmpty();
  }

  private void walk(CommandLine command, List<String> missing) {
    CommandLine.Model.CommandSpec spec = command.getCommandSpec();
    for (CommandLine.Model.OptionSpec option : spec.options()) {
      String name = option.longestName();
      if (name.endsWith("-url")
          || name.endsWith("-uri")
          || name.equals("--participant")
          || name.equals("--service")
          || name.equals("--kafka-property")
          || name.equals("--kafka-config")
          || name.equals("--nats-credentials")) {
        String key = spec.qualifiedName(" ").replaceFirst("^tandem ", "") + " " + name;
        if (!covered.contains(key)
            && !name.equals("--rabbitmq-uri")
            && !name.equals("--nats-url")
            && !name.equals("--redis-uri")) {
          missing.add(key);
        }
      }
    }
    command.getSubcommands().values().stream()
        .distinct()
        .filter(c -> !c.getCommandSpec().name().equals("help"))
        .forEach(c -> walk(c, missing));
  }

  private String assertNoSecret(String... args) {
    Captured run = capture(() -> Cli.run(args));
    assertThat(run.text())
        .as("tandem %s printed:%n%s", String.join(" ", args), run.text())
        .doesNotContain(SECRET)
        .isNotBlank();
    record(args);
    return run.text();
  }

  private void assertNoSecretWhileRunning(String... args) throws Exception {
    AtomicReference<Cli> result = new AtomicReference<>();
    Captured run =
        capture(
            () -> {
              Thread relay = new Thread(() -> result.set(Cli.run(args)), "relay-under-test");
              relay.start();
              // It starts, then tries to publish the pending event: its banner and any failure.
              await()
                  .atMost(Duration.ofSeconds(30))
                  .until(
                      () ->
                          Captured.current().contains("tandem relay")
                              || Captured.current().contains("tandem dashboard")
                              || !relay.isAlive());
              await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
              relay.interrupt();
              relay.join(30_000);
              return result.get();
            });
    assertThat(run.text())
        .as("tandem %s printed:%n%s", String.join(" ", args), run.text())
        .doesNotContain(SECRET)
        .isNotBlank();
    record(args);
  }

  /** Notes which command's URL options {@code args} used, as picocli reads them. */
  private void record(String... args) {
    CommandLine.ParseResult parsed;
    try {
      parsed = TandemCommand.commandLine().parseArgs(args);
    } catch (CommandLine.ParameterException malformed) {
      return; // a malformed command line covers no command
    }
    while (parsed.hasSubcommand()) {
      parsed = parsed.subcommand();
    }
    String command = parsed.commandSpec().qualifiedName(" ").replaceFirst("^tandem ", "");
    for (CommandLine.Model.OptionSpec option : parsed.matchedOptions()) {
      covered.add(command + " " + option.longestName());
    }
  }

  interface Run {
    Cli run() throws Exception;
  }

  /** A command's own writers and everything printed to System.out/err (logs included). */
  record Captured(Cli cli, String printed) {
    private static volatile ByteArrayOutputStream active;

    String text() {
      return (cli == null ? "" : cli.out() + cli.err()) + printed;
    }

    static String current() {
      ByteArrayOutputStream a = active;
      return a == null ? "" : a.toString(StandardCharsets.UTF_8);
    }
  }

  private static Captured capture(Run run) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(printed, true, StandardCharsets.UTF_8);
    Captured.active = printed;
    System.setOut(both);
    System.setErr(both);
    try {
      Cli cli = run.run();
      if (cli != null) {
        both.print(cli.out() + cli.err()); // into the report below, as the user saw it
      }
      return new Captured(cli, printed.toString(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      System.setOut(out);
      System.setErr(err);
      Captured.active = null;
      out.print(printed.toString(StandardCharsets.UTF_8)); // the run's output, for the report
    }
  }
}
