package io.tandem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.tandem.core.Event;
import io.tandem.jdbc.Dialect;
import io.tandem.jdbc.Migrations;
import io.tandem.jdbc.Transactions;
import io.tandem.outbox.Outbox;
import io.tandem.testkit.IsolatedDatabase;
import io.tandem.testkit.TestInfrastructure;
import io.tandem.testkit.TlsProxy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/**
 * {@code tandem relay --rabbitmq-uri amqps://...} and {@code --redis-uri rediss://...}: TLS with
 * the JVM's truststore. The machine's RabbitMQ and Redis have no TLS listener, so a {@link
 * TlsProxy} on a self-signed certificate stands in front of them; with the certificate in the JVM's
 * trust (here {@code SSLContext.setDefault}; for the launcher {@code -Djavax.net.ssl.trustStore})
 * the event reaches the broker over TLS, without it the handshake is refused: the certificate is
 * checked.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsBrokerUrlsTest {
  private IsolatedDatabase db;
  private SSLContext jvmDefault;
  private final String prefix = "tls" + UUID.randomUUID().toString().substring(0, 8) + ".";

  @BeforeAll
  void aDatabase() throws Exception {
    jvmDefault = SSLContext.getDefault();
    db = TestInfrastructure.postgres().createDatabase("cli_tls_urls");
    Migrations.migrate(db.dataSource());
  }

  @AfterEach
  void restoreTheJvmsTrust() {
    SSLContext.setDefault(jvmDefault);
  }

  @AfterAll
  void drop() {
    db.close();
  }

  @Test
  void amqpsPublishesOverTlsAndChecksTheCertificate() throws Exception {
    ConnectionFactory plain = new ConnectionFactory();
    plain.setUri("amqp://guest:guest@127.0.0.1:5672");
    String exchange = prefix + "order";
    try (TlsProxy tls = TlsProxy.start("127.0.0.1", 5672);
        Connection connection = plain.newConnection();
        Channel channel = connection.createChannel()) {
      channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
      String queue = channel.queueDeclare().getQueue();
      channel.queueBind(queue, exchange, "#");
      String uri = "amqps://guest:guest@127.0.0.1:" + tls.port() + "/";

      append("amqps-untrusted");
      String refused =
          runRelayUntil(
              () -> false,
              Duration.ofSeconds(3),
              relay("--rabbitmq-uri", uri, "--destination-prefix", prefix));
      assertThat(refused).containsIgnoringCase("PKIX");
      assertThat(channel.basicGet(queue, true)).isNull();

      SSLContext.setDefault(tls.clientContext());
      Event trusted = append("amqps-trusted");
      AtomicReference<String> got = new AtomicReference<>();
      runRelayUntil(
          () -> {
            try {
              GetResponse r;
              while ((r = channel.basicGet(queue, true)) != null) {
                String id = String.valueOf(r.getProps().getHeaders().get("cloudEvents_id"));
                if (id.equals(trusted.eventId().toString())) {
                  got.set(id);
                }
              }
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            return got.get() != null;
          },
          Duration.ofSeconds(30),
          relay("--rabbitmq-uri", uri, "--destination-prefix", prefix));
      assertThat(got.get()).isEqualTo(trusted.eventId().toString());
    }
  }

  /** A trusted certificate for another host: amqps checks the name, not only the signature. */
  @Test
  void amqpsRefusesATrustedCertificateForAnotherHost() throws Exception {
    try (TlsProxy tls =
        TlsProxy.startWithCertificateFor("dns:elsewhere.invalid", "127.0.0.1", 5672)) {
      SSLContext.setDefault(tls.clientContext());
      append("amqps-elsewhere");
      String refused =
          runRelayUntil(
              () -> false,
              Duration.ofSeconds(3),
              relay(
                  "--rabbitmq-uri",
                  "amqps://guest:guest@127.0.0.1:" + tls.port() + "/",
                  "--destination-prefix",
                  prefix));
      assertThat(refused).contains("No subject alternative names").doesNotContain("published 1");
    }
  }

  @Test
  void redissPublishesOverTlsAndChecksTheCertificate() throws Exception {
    String stream = prefix.replace('.', ':') + "order";
    try (TlsProxy tls = TlsProxy.start("127.0.0.1", 6379, "TLSv1.3");
        Jedis redis = new Jedis("127.0.0.1", 6379)) {
      String uri = "rediss://127.0.0.1:" + tls.port();
      append("rediss-untrusted");
      String refused =
          runRelayUntil(
              () -> false,
              Duration.ofSeconds(3),
              relay("--redis-uri", uri, "--destination-prefix", prefix.replace('.', ':')));
      assertThat(refused).containsIgnoringCase("PKIX");
      assertThat(redis.exists(stream)).isFalse();

      SSLContext.setDefault(tls.clientContext());
      Event event = append("rediss-trusted");
      runRelayUntil(
          () ->
              redis.exists(stream)
                  && redis
                      .xrange(stream, "-", "+", 10)
                      .toString()
                      .contains(event.eventId().toString()),
          Duration.ofSeconds(30),
          relay("--redis-uri", uri, "--destination-prefix", prefix.replace('.', ':')));
      assertThat(redis.xrange(stream, "-", "+", 10).toString())
          .contains(event.eventId().toString());
      redis.del(stream);
    }
  }

  private String[] relay(String... broker) {
    String[] common = {
      "relay",
      "--jdbc-url",
      db.jdbcUrl(),
      "--http-port",
      "-1",
      "--poll-interval",
      "100ms",
      "--publish-timeout",
      "2s"
    };
    String[] all = new String[common.length + broker.length];
    System.arraycopy(common, 0, all, 0, common.length);
    System.arraycopy(broker, 0, all, common.length, broker.length);
    return all;
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

  /** Runs the relay in a thread until {@code done} or {@code max}; returns all it printed. */
  static String runRelayUntil(BooleanSupplier done, Duration max, String... args) throws Exception {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream both = new PrintStream(printed, true, StandardCharsets.UTF_8);
    System.setOut(both);
    System.setErr(both);
    AtomicReference<Cli> result = new AtomicReference<>();
    try {
      Thread relay = new Thread(() -> result.set(Cli.run(args)), "relay-under-test");
      relay.start();
      try {
        long deadline = System.nanoTime() + max.toNanos();
        await()
            .atMost(max.plusSeconds(5))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> !relay.isAlive() || done.getAsBoolean() || System.nanoTime() > deadline);
      } finally {
        relay.interrupt(); // also when the wait failed
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
