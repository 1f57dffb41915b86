package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.MessageInfo;
import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code tandem relay --nats-credentials FILE} against a NATS server that requires it: a {@code
 * nats-server} started for the test (skipped where the binary is missing) whose only user is an
 * NKEY made for the test. With the user's credentials file the relay publishes into JetStream;
 * without it the server refuses the connection (authorization violation) and nothing is stored.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NatsCredentialsServerTest {
  private Process server;
  private int port;
  private Path dir;
  private Path creds;
  private String seed;
  private IsolatedDatabase db;

  @BeforeAll
  void aNatsServerThatRequiresAnNkey() throws Exception {
    Path binary = Path.of("/usr/sbin/nats-server");
    Assumptions.assumeTrue(Files.isExecutable(binary), "nats-server is not installed");
    dir = Files.createTempDirectory("tandem-nats-auth");
    NKey user = NKey.createUser(new SecureRandom());
    seed = new String(user.getSeed());
    creds = dir.resolve("relay.creds");
    Files.writeString(
        creds,
        "-----BEGIN NATS USER JWT-----\n"
            + "eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n"
            + "------END NATS USER JWT------\n\n"
            + "-----BEGIN USER NKEY SEED-----\n"
            + seed
            + "\n------END USER NKEY SEED------\n");
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    Path config = dir.resolve("nats.conf");
    Files.writeString(
        config,
        "listen: \"127.0.0.1:"
            + port
            + "\"\njetstream { store_dir: \""
            + dir.resolve("js")
            + "\" }\nauthorization { users = [ { nkey: \""
            + new String(user.getPublicKey())
            + "\" } ] }\n");
    server =
        new ProcessBuilder(binary.toString(), "-c", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("nats.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(15))
        .ignoreExceptions()
        .until(
            () -> {
              try (Socket s = new Socket("127.0.0.1", port)) {
                return true;
              }
            });
    db = TestInfrastructure.postgres().createDatabase("cli_nats_creds");
    Migrations.migrate(db.dataSource());
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.destroy();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void withTheCredentialsFileTheRelayPublishesAndWithoutItTheServerRefuses() throws Exception {
    String url = "nats://127.0.0.1:" + port;
    append("refused-1");
    String refused =
        TlsBrokerUrlsTest.runRelayUntil(
            () -> false,
            Duration.ofSeconds(3),
            "relay",
            "--jdbc-url",
            db.jdbcUrl(),
            "--http-port",
            "-1",
            "--publish-timeout",
            "1s",
            "--nats-url",
            url,
            "--nats-stream",
            "TANDEM_AUTH",
            "--destination-prefix",
            "auth.");
    assertThat(refused).containsIgnoringCase("authorization violation");

    Event event = append("accepted-1");
    Options options =
        new Options.Builder().server(url).authHandler(Nats.credentials(creds.toString())).build();
    try (Connection nats = Nats.connect(options)) {
      JetStreamManagement jsm = nats.jetStreamManagement();
      String printed =
          TlsBrokerUrlsTest.runRelayUntil(
              () -> stored(jsm, event),
              Duration.ofSeconds(30),
              "relay",
              "--jdbc-url",
              db.jdbcUrl(),
              "--http-port",
              "-1",
              "--publish-timeout",
              "2s",
              "--nats-url",
              url,
              "--nats-credentials",
              creds.toString(),
              "--nats-stream",
              "TANDEM_AUTH",
              "--destination-prefix",
              "auth.");
      assertThat(stored(jsm, event)).as("in JetStream; the relay printed:%n%s", printed).isTrue();
      assertThat(printed).doesNotContain(seed);
    }
  }

  private static boolean stored(JetStreamManagement jsm, Event event) {
    try {
      MessageInfo last = jsm.getLastMessage("TANDEM_AUTH", "auth.order.accepted-1");
      return last.getHeaders().toString().contains(event.eventId().toString())
          || new String(last.getData(), StandardCharsets.UTF_8)
              .contains(event.eventId().toString());
    } catch (Exception e) {
      return false;
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
}
