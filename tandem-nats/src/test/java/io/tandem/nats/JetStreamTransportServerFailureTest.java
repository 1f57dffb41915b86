package io.tandem.nats;

import static io.tandem.nats.NatsTestSupport.SOURCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nats.client.Connection;
import io.nats.client.Nats;
import io.tandem.core.ErrorClass;
import io.tandem.core.Event;
import io.tandem.core.spi.PublishOutcome;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Failures the shared server cannot show, against nats-server processes of the test's own. */
class JetStreamTransportServerFailureTest {
  @BeforeAll
  static void needsTheNatsServerBinary() {
    assumeTrue(PrivateNatsServer.available(), "nats-server is not on the PATH");
  }

  private static List<PublishOutcome> publish(JetStreamTransport nats, long version) {
    return publish(nats, NatsTestSupport.event("Order", "order-1", version));
  }

  private static List<PublishOutcome> publish(JetStreamTransport nats, Event event) {
    return nats.publish(List.of(event), Duration.ofSeconds(2));
  }

  private static ErrorClass errorClass(PublishOutcome outcome) {
    return outcome.acknowledged() ? null : outcome.failure().errorClass();
  }

  @Test
  void aLostServerFailsPublishesRetriablyAndTheTransportRecoversWhenItReturns() throws Exception {
    try (PrivateNatsServer server = PrivateNatsServer.open();
        JetStreamTransport nats =
            JetStreamTransport.builder()
                .url(server.url())
                .source(SOURCE)
                .ensureStream("ORDERS", "tandem.order.>")
                .build()) {
      Event first = NatsTestSupport.event("Order", "order-1", 1);
      // A freshly started server may need a moment for JetStream (the stream, its first ack).
      Awaitility.await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> publish(nats, first).get(0).acknowledged());

      server.kill();
      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> errorClass(publish(nats, 2).get(0)) == ErrorClass.CONNECTION_LOST);
      long started = System.nanoTime();
      PublishOutcome whileDown = publish(nats, 2).get(0);
      assertThat(whileDown.failure().retriable()).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("fails at once instead of buffering")
          .isLessThan(Duration.ofMillis(1500));

      server.start(); // same port, same store: the stream and event 1 are still there
      // jnats retries every 2 s (its reconnect wait); the server restores the stream on start.
      // One event, so that a retry whose ack came too late is not stored twice.
      Event second = NatsTestSupport.event("Order", "order-1", 2);
      Awaitility.await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> publish(nats, second).get(0).acknowledged());
      // Recovered for good, not for one message: each later publish is acknowledged at the first
      // try. (With jnats 2.25.1 a reconnect race could leave the client sending nothing more.)
      for (long version = 3; version <= 7; version++) {
        Event event = NatsTestSupport.event("Order", "order-1", version);
        assertThat(nats.publish(List.of(event), Duration.ofSeconds(10)))
            .as("publish of version %d after the reconnect", version)
            .allMatch(PublishOutcome::acknowledged);
      }
      // The restarted server still knows event 1: acknowledged as a duplicate, stored once.
      assertThat(nats.publish(List.of(first), Duration.ofSeconds(10)))
          .allMatch(PublishOutcome::acknowledged);
      assertThat(messageCount(server, "ORDERS")).isEqualTo(7);
    }
  }

  private static long messageCount(PrivateNatsServer server, String stream) throws Exception {
    Connection connection = Nats.connect(server.url());
    try {
      return connection.jetStreamManagement().getStreamInfo(stream).getStreamState().getMsgCount();
    } finally {
      connection.close();
    }
  }

  @Test
  void refusedCredentialsArePermanentAuthorizationFailures() throws Exception {
    try (PrivateNatsServer server = PrivateNatsServer.withPermissions();
        JetStreamTransport nats =
            JetStreamTransport.builder()
                .url(server.url(PrivateNatsServer.USER, "wrong"))
                .source(SOURCE)
                .build()) {
      long started = System.nanoTime();
      PublishOutcome outcome = publish(nats, 1).get(0);

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
      assertThat(outcome.failure().errorClass())
          .as(outcome.failure().getMessage())
          .isEqualTo(ErrorClass.AUTHORIZATION);
      assertThat(outcome.failure().retriable()).isFalse();
    }
  }

  @Test
  void aSubjectTheCredentialsMayNotPublishToIsAnAuthorizationFailure() throws Exception {
    try (PrivateNatsServer server = PrivateNatsServer.withPermissions();
        JetStreamTransport nats =
            JetStreamTransport.builder()
                .url(server.url(PrivateNatsServer.USER, PrivateNatsServer.PASSWORD))
                .source(SOURCE)
                .subjectRouter(
                    e ->
                        e.aggregateType().equals("Order")
                            ? "allowed." + SubjectRouter.token(e.aggregateId())
                            : "denied." + SubjectRouter.token(e.aggregateId()))
                .ensureStream("ALL", ">")
                .build()) {
      Event allowed = NatsTestSupport.event("Order", "order-1", 1);
      Event denied = NatsTestSupport.event("Refund", "order-1", 2);

      List<PublishOutcome> outcomes = nats.publish(List.of(allowed, denied), Duration.ofSeconds(1));

      assertThat(outcomes.get(0).acknowledged()).isTrue();
      assertThat(outcomes.get(1).failure().errorClass())
          .as(outcomes.get(1).failure().getMessage())
          .isEqualTo(ErrorClass.AUTHORIZATION);
    }
  }
}
