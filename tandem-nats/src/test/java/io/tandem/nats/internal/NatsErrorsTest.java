package io.tandem.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.nats.client.AuthenticationException;
import io.tandem.core.ErrorClass;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class NatsErrorsTest {
  @Test
  void jetStreamApiErrorsAreClassifiedByTheirCode() {
    assertThat(NatsErrors.classifyApiError(10054, 400)).isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(NatsErrors.classifyApiError(10059, 404)).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(NatsErrors.classifyApiError(10109, 400)).isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(NatsErrors.classifyApiError(10077, 503)).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(NatsErrors.classifyApiError(10008, 503)).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(NatsErrors.classifyApiError(99999, 503)).isEqualTo(ErrorClass.TRANSIENT);
    assertThat(NatsErrors.classifyApiError(10071, 400)).isEqualTo(ErrorClass.UNKNOWN);
  }

  @Test
  void clientFailuresAreClassifiedThroughTheirCauseChain() {
    assertThat(
            NatsErrors.classify(
                new CompletionException(
                    new RuntimeException(
                        new IOException(
                            "Error Publishing: 503 No Responders Available For Request")))))
        .isEqualTo(ErrorClass.UNROUTABLE);
    assertThat(
            NatsErrors.classify(
                new IllegalStateException(
                    "Unable to queue any more messages during reconnect, max buffer is 0")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(NatsErrors.classify(new IllegalStateException("Connection is Closed")))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(NatsErrors.classify(new IllegalStateException("Output queue is full 5000")))
        .isEqualTo(ErrorClass.TRANSIENT);
    assertThat(
            NatsErrors.classify(
                new IllegalArgumentException(
                    "Message payload size exceed server configuration 2000000 vs 1048576")))
        .isEqualTo(ErrorClass.RECORD_TOO_LARGE);
    assertThat(
            NatsErrors.classify(
                new CompletionException(
                    new CancellationException("Future cancelled, connection closing."))))
        .isEqualTo(ErrorClass.CONNECTION_LOST);
    assertThat(NatsErrors.classify(new TimeoutException("no ack"))).isEqualTo(ErrorClass.TIMEOUT);
    assertThat(NatsErrors.classify(new IOException("Permissions Violation for Publish to \"x\"")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(NatsErrors.classify(new RuntimeException("something else")))
        .isEqualTo(ErrorClass.UNKNOWN);
  }

  @Test
  void connectFailuresAreUnavailableUnlessTheCredentialsWereRefused() {
    assertThat(NatsErrors.classifyConnect(new IOException("Unable to connect to NATS servers")))
        .isEqualTo(ErrorClass.BROKER_UNAVAILABLE);
    assertThat(NatsErrors.classifyConnect(new AuthenticationException("Authorization Violation")))
        .isEqualTo(ErrorClass.AUTHORIZATION);
    assertThat(
            NatsErrors.classifyConnect(
                new IOException("Unable to connect", new IOException("'Authorization Violation'"))))
        .isEqualTo(ErrorClass.AUTHORIZATION);
  }

  @Test
  void aPermissionViolationReportedByTheServerIsRememberedPerSubject() {
    NatsSession session = new NatsSession();
    long before = System.nanoTime();

    session.errorOccurred(null, "Permissions Violation for Publish to \"tandem.order.o-1\"");

    assertThat(session.publishRefused("tandem.order.o-1", before)).isTrue();
    assertThat(session.publishRefused("tandem.order.o-2", before)).isFalse();
    assertThat(session.publishRefused("tandem.order.o-1", System.nanoTime())).isFalse();
  }
}
