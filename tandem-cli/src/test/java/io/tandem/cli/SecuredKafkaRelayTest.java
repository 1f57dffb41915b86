package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.KafkaBroker;
import io.tandem.testkit.TestInfrastructure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem relay} against a Kafka listener that speaks only TLS (the embedded broker's, on a
 * self-signed certificate made for the test): with the truststore given through {@code
 * --kafka-config} and {@code --kafka-property} it publishes an event that a TLS consumer reads;
 * without them it stops at once with an error that points at the TLS settings; the truststore's
 * password is printed nowhere.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecuredKafkaRelayTest {
  private KafkaBroker kafka;
  private IsolatedDatabase db;
  @TempDir Path dir;

  @BeforeAll
  void aBrokerWithATlsListener() {
    kafka = KafkaBroker.embedded().defaultPartitions(1).tlsListener().start();
    db = TestInfrastructure.postgres().createDatabase("cli_tls");
    Migrations.migrate(db.dataSource());
  }

  @AfterAll
  void stop() {
    db.close();
    kafka.close();
  }

  @Test
  void theRelayPublishesOverTlsWithTheClientSettingsOfAFileAndTheCommandLine() throws Exception {
    Map<String, String> tls = kafka.tlsClientProperties();
    String password = tls.get("ssl.truststore.password");
    Path config = dir.resolve("kafka-client.properties");
    Files.writeString(
        config,
        "# the truststore of the broker's self-signed certificate\n"
            + "ssl.truststore.location="
            + tls.get("ssl.truststore.location")
            + "\nssl.truststore.password="
            + password
            + "\nssl.truststore.type=PKCS12\nsecurity.protocol=PLAINTEXT\n");
    Event event = append("o-tls");

    List<String> read = new ArrayList<>();
    String printed;
    try (KafkaConsumer<String, byte[]> consumer = tlsConsumer("tandem.order")) {
      printed =
          runRelayUntil(
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
              kafka.tlsBootstrapServers(),
              "--kafka-config",
              config.toString(),
              "--kafka-property",
              "security.protocol=SSL", // wins over the file's PLAINTEXT
              "--http-port",
              "-1",
              "--poll-interval",
              "100ms");
    }

    assertThat(read)
        .as("read over TLS; the relay printed:%n%s", printed)
        .contains(event.eventId().toString());
    assertThat(printed)
        .contains("publishing via kafka")
        .contains("security.protocol=SSL")
        .contains("ssl.truststore.password")
        .doesNotContain(password);
  }

  @Test
  void withoutTheTlsSettingsTheRelayStopsAtOnceSayingWhatToGive() throws Exception {
    AtomicReference<Cli> result = new AtomicReference<>();
    Thread relay =
        new Thread(
            () ->
                result.set(
                    Cli.run(
                        "relay",
                        "--jdbc-url",
                        db.jdbcUrl(),
                        "--kafka-bootstrap",
                        kafka.tlsBootstrapServers(),
                        "--http-port",
                        "-1",
                        "--startup-timeout",
                        "3s")),
            "plaintext-relay-under-test");
    relay.start();
    relay.join(20_000);
    boolean hung = relay.isAlive();
    if (hung) {
      relay.interrupt();
      relay.join(30_000);
    }
    assertThat(hung).as("still running after 20 s: a hang, not an error").isFalse();
    Cli run = result.get();
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err())
        .contains("did not answer within 3000 ms (--startup-timeout)")
        .contains("security.protocol=PLAINTEXT")
        .contains("TLS or SASL")
        .contains("--kafka-config");
  }

  @Test
  void aTruststoreThatIsNotThereIsSaidBeforeAnythingConnects() {
    Cli run =
        Cli.run(
            "relay",
            "--jdbc-url",
            db.jdbcUrl(),
            "--kafka-bootstrap",
            kafka.tlsBootstrapServers(),
            "--kafka-property",
            "security.protocol=SSL",
            "--kafka-property",
            "ssl.truststore.location=" + dir.resolve("missing.p12"),
            "--kafka-property",
            "ssl.truststore.password=hunter2",
            "--http-port",
            "-1");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err())
        .contains("The Kafka client refused its settings")
        .contains("missing.p12")
        .doesNotContain("hunter2");
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

  private KafkaConsumer<String, byte[]> tlsConsumer(String topic) {
    Map<String, Object> config = new HashMap<>(kafka.tlsClientProperties());
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.tlsBootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, "tls-reader");
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config);
    consumer.subscribe(List.of(topic));
    return consumer;
  }

  /**
   * Runs the relay in a thread until {@code done} (at most 30 s after its start line); returns all
   * it printed.
   */
  static String runRelayUntil(BooleanSupplier done, String... args) throws Exception {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(printed, true, StandardCharsets.UTF_8);
    System.setOut(both);
    System.setErr(both);
    AtomicReference<Cli> result = new AtomicReference<>();
    try {
      Thread relay = new Thread(() -> result.set(Cli.run(args)), "tls-relay-under-test");
      relay.start();
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    printed.toString(StandardCharsets.UTF_8).contains("tandem relay")
                        || !relay.isAlive());
        await().atMost(Duration.ofSeconds(30)).until(() -> !relay.isAlive() || done.getAsBoolean());
      } finally {
        relay.interrupt(); // also when the wait failed: no relay outlives its test
        relay.join(30_000);
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    Cli cli = result.get();
    String text =
        printed.toString(StandardCharsets.UTF_8) + (cli == null ? "" : cli.out() + cli.err());
    out.print(text);
    return text;
  }
}
