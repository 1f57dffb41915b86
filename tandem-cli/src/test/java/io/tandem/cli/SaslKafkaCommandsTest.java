package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.TestInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands that talk to Kafka against a listener that speaks only SASL (the embedded broker's
 * SASL_PLAINTEXT listener, user {@code tandem}, SCRAM-SHA-512 credentials written at format time),
 * with the credentials in a {@code --kafka-config} file: {@code tandem relay} publishes an event a
 * SASL consumer reads; {@code tandem drill duplicate-delivery} and the checkout demo (with an
 * orchestrator killed) pass, their processes getting the settings without the password on their
 * command lines; the outbox demo passes; a wrong password stops each command at once with an error
 * that says so. The password is printed nowhere.
 */
@Tag("slow") // a drill, two demos and a benchmark: about 90 s
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SaslKafkaCommandsTest {
  private KafkaBroker kafka;
  private IsolatedDatabase db;
  @TempDir Path dir;

  @BeforeAll
  void aBrokerWithASaslListener() {
    kafka = KafkaBroker.embedded().defaultPartitions(1).saslListener().start();
    db = TestInfrastructure.postgres().createDatabase("cli_sasl");
    Migrations.migrate(db.dataSource());
  }

  @AfterAll
  void stop() {
    db.close();
    kafka.close();
  }

  @Test
  void theRelayPublishesOverScramWithTheCredentialsOfAFile() throws Exception {
    Path config = clientConfig("client.properties", kafka.saslPassword());
    Event event = append("o-sasl");
    List<String> read = new ArrayList<>();
    String printed;
    try (KafkaConsumer<String, byte[]> consumer = saslConsumer("tandem.order")) {
      printed =
          SecuredKafkaRelayTest.runRelayUntil(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  r.headers().headers("ce_id").forEach(h -> read.add(new String(h.value())));
                }
                return read.contains(event.eventId().toString());
              },
              "relay",
              "--jdbc-url",
              db.jdbcUrl(),
              "--kafka-bootstrap",
              kafka.saslBootstrapServers(),
              "--kafka-config",
              config.toString(),
              "--http-port",
              "-1",
              "--poll-interval",
              "100ms");
    }
    assertThat(read)
        .as("read over SASL; the relay printed:%n%s", printed)
        .contains(event.eventId().toString());
    assertThat(printed)
        .contains("security.protocol=SASL_PLAINTEXT")
        .contains("sasl.mechanism=SCRAM-SHA-512")
        .contains("sasl.jaas.config")
        .doesNotContain(kafka.saslPassword());
  }

  @Test
  void aWrongPasswordStopsTheRelayAtOnceSayingTheLoginWasRefused() throws Exception {
    String wrong = "wrong-" + kafka.saslPassword();
    Path config = clientConfig("wrong.properties", wrong);
    Cli run =
        runWithin(
            Duration.ofSeconds(30),
            "relay",
            "--jdbc-url",
            db.jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString(),
            "--http-port",
            "-1",
            "--publish-timeout",
            "10s");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err())
        .contains("refused the connection with security.protocol=SASL_PLAINTEXT")
        .contains("SaslAuthenticationException")
        .contains("--kafka-config")
        .doesNotContain(wrong)
        .doesNotContain(kafka.saslPassword());
  }

  @Test
  void aWrongPasswordStopsTheDrillBeforeAnythingStarts() throws Exception {
    String wrong = "wrong-" + kafka.saslPassword();
    Path config = clientConfig("wrong-drill.properties", wrong);
    Cli run =
        runWithin(
            Duration.ofSeconds(30),
            "drill",
            "duplicate-delivery",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString());
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err())
        .contains("SaslAuthenticationException")
        .doesNotContain(wrong)
        .doesNotContain(kafka.saslPassword());
  }

  @Test
  void aDrillPassesOverSaslAndNoProcessCarriesThePasswordOnItsCommandLine() throws Exception {
    String password = kafka.saslPassword();
    Path config = clientConfig("drill.properties", password);
    Path logs = Files.createDirectories(dir.resolve("drill-logs"));
    Watched run =
        runWatchingChildren(
            "drill",
            "duplicate-delivery",
            "--events",
            "40",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString(),
            "--logs",
            logs.toString());
    assertThat(run.cli().status()).as("the drill printed:%n%s", run.text()).isZero();
    assertThat(run.text()).contains("duplicate-delivery").contains("PASS");
    assertThat(run.commandLines())
        .as("the drill's role processes were seen")
        .anyMatch(c -> c.contains("io.tandem.drill.RoleMain"));
    assertThat(run.commandLines()).noneMatch(c -> c.contains(password));
    assertThat(run.text()).doesNotContain(password);
    assertNoFileHolds(logs, password);
  }

  /**
   * The checkout demo over SASL with one orchestrator killed: its orchestrator processes log in
   * with the settings from their environment and the run's invariants hold.
   */
  @Test
  void theCheckoutDemoRunsOverSaslWithItsOrchestratorProcessesLoggedIn() throws Exception {
    String password = kafka.saslPassword();
    Path config = clientConfig("demo.properties", password);
    Watched run =
        runWatchingChildren(
            "demo",
            "--checkouts",
            "20",
            "--orchestrator-kills",
            "1",
            "--no-mariadb",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString());
    assertThat(run.cli().status()).as("the demo printed:%n%s", run.text()).isZero();
    assertThat(run.commandLines())
        .as("the demo's orchestrator processes were seen")
        .anyMatch(c -> c.contains("OrchestratorMain"));
    assertThat(run.commandLines()).noneMatch(c -> c.contains(password));
    assertThat(run.text()).doesNotContain(password);
  }

  /** The outbox demo (all in this JVM) over SASL. */
  @Test
  void theOutboxDemoRunsOverSasl() throws Exception {
    String password = kafka.saslPassword();
    Path config = clientConfig("outbox-demo.properties", password);
    Watched run =
        runWatchingChildren(
            "demo",
            "--scenario",
            "outbox",
            "--orders",
            "50",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString());
    assertThat(run.cli().status()).as("the demo printed:%n%s", run.text()).isZero();
    assertThat(run.text()).doesNotContain(password);
  }

  /** The consumer benchmark over SASL: its producer, consumers and admin client all log in. */
  @Test
  void theConsumerBenchmarkRunsOverSasl() throws Exception {
    String password = kafka.saslPassword();
    Path config = clientConfig("bench.properties", password);
    Watched run =
        runWatchingChildren(
            "bench",
            "consumer",
            "--events",
            "1000",
            "--json",
            "--jdbc-url",
            TestInfrastructure.postgres().jdbcUrl(),
            "--kafka-bootstrap",
            kafka.saslBootstrapServers(),
            "--kafka-config",
            config.toString());
    assertThat(run.cli().status()).as("the benchmark printed:%n%s", run.text()).isZero();
    assertThat(run.text()).contains("\"events\"").doesNotContain(password);
  }

  /** What a command returned and printed, and every command line of its child processes. */
  record Watched(Cli cli, String text, Set<String> commandLines) {}

  private static Watched runWatchingChildren(String... args) throws Exception {
    Set<String> commandLines = ConcurrentHashMap.newKeySet();
    AtomicBoolean watching = new AtomicBoolean(true);
    Thread watcher =
        new Thread(
            () -> {
              while (watching.get()) {
                ProcessHandle.current()
                    .descendants()
                    .forEach(p -> commandLine(p.pid()).ifPresent(commandLines::add));
                sleep(100);
              }
            },
            "command-line-watcher");
    watcher.setDaemon(true);
    watcher.start();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Cli run;
    PrintStream out = System.out;
    PrintStream err = System.err;
    try (PrintStream both = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      System.setOut(both);
      System.setErr(both);
      run = Cli.run(args);
    } finally {
      System.setOut(out);
      System.setErr(err);
      watching.set(false);
      watcher.join(5_000);
    }
    String text = printed.toString(StandardCharsets.UTF_8) + run.out() + run.err();
    out.print(text);
    return new Watched(run, text, commandLines);
  }

  private static void assertNoFileHolds(Path folder, String secret) throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(Files.readString(f)).as("log %s", f).doesNotContain(secret);
      }
    }
  }

  private Path clientConfig(String name, String password) throws IOException {
    Map<String, String> sasl = new HashMap<>(kafka.saslClientProperties("SCRAM-SHA-512"));
    sasl.put(
        "sasl.jaas.config", sasl.get("sasl.jaas.config").replace(kafka.saslPassword(), password));
    StringBuilder text = new StringBuilder("# SCRAM login of the test's broker\n");
    sasl.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }

  private static Cli runWithin(Duration limit, String... args) throws InterruptedException {
    AtomicReference<Cli> result = new AtomicReference<>();
    Thread command = new Thread(() -> result.set(Cli.run(args)), "sasl-command-under-test");
    command.start();
    command.join(limit.toMillis());
    boolean hung = command.isAlive();
    if (hung) {
      command.interrupt();
      command.join(30_000);
    }
    assertThat(hung).as("still running after %s: a hang, not an error", limit).isFalse();
    return result.get();
  }

  /**
   * The whole command line of process {@code pid} from /proc (ProcessHandle.Info cuts long ones
   * short), its arguments joined by spaces.
   */
  private static java.util.Optional<String> commandLine(long pid) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return java.util.Optional.of(new String(raw, StandardCharsets.UTF_8).replace('\0', ' '));
    } catch (IOException e) {
      return java.util.Optional.empty(); // ended meanwhile
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Event append(String aggregateId) {
    Outbox outbox = Outbox.create(Dialect.of(db.dataSource()));
    Event e =
        Event.builder()
            .aggregate("Order", aggregateId, 1)
            .eventType("OrderPlaced")
            .payload("{}")
            .build();
    Transactions.inTransaction(
        db.dataSource(),
        c -> {
          outbox.append(c, e);
          return null;
        });
    return e;
  }

  private KafkaConsumer<String, byte[]> saslConsumer(String topic) {
    Map<String, Object> config = new HashMap<>(kafka.saslClientProperties("SCRAM-SHA-512"));
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.saslBootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, "sasl-reader");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config);
    consumer.subscribe(List.of(topic));
    return consumer;
  }
}
